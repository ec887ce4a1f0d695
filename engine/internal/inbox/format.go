package inbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"time"

	"cairn/internal/timefmt"
)

// Line kinds. Part of the format.
const (
	KindMsg   = "msg"
	KindTake  = "take"
	KindTaken = "taken"
)

// Limits. MaxText is part of the contract of a message.
const (
	// MaxText is the most bytes of a message's text.
	MaxText = 64 << 10
	// maxLine is the longest line a reader takes; a longer one is
	// skipped (no writer of ours makes one).
	maxLine = 1 << 20
)

// Errors of the package, tested with errors.Is.
var (
	// ErrInvalid: a message that is not one (blank, not UTF-8, too long).
	ErrInvalid = errors.New("inbox: invalid message")
	// ErrNotLive: the receiving session is not open in any process.
	ErrNotLive = errors.New("inbox: the session is not open anywhere")
	// ErrInDoubt: a delivery failed part way; nothing more is delivered
	// until the inbox is opened again.
	ErrInDoubt = errors.New("inbox: a delivery failed part way")
	// ErrClosed: the inbox was closed.
	ErrClosed = errors.New("inbox: closed")
)

// line is one line of the journal. V and Kind come first, in this order:
// the reader's resynchronisation looks for them (doc.go).
type line struct {
	V    int          `json:"v"`
	Kind string       `json:"kind"`
	ID   string       `json:"id,omitempty"`
	From string       `json:"from,omitempty"`
	Text string       `json:"text,omitempty"`
	Msg  string       `json:"msg,omitempty"`
	Item string       `json:"item,omitempty"`
	At   timefmt.Time `json:"at"`
}

// lineStart is how every line begins; the last one in a line that does
// not parse is where its complete part starts.
const lineStart = `{"v":1,"kind":"`

// encode is l as one line with its "\n".
func encode(l *line) ([]byte, error) {
	l.V = 1
	b, err := json.Marshal(l)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// decode reads a complete line (without "\n"), resynchronising on a
// torn part before it; false for a line that is none of ours.
func decode(b []byte, l *line) bool {
	*l = line{}
	if json.Unmarshal(b, l) == nil && l.V == 1 {
		return true
	}
	i := bytes.LastIndex(b, []byte(lineStart))
	if i <= 0 {
		return false
	}
	*l = line{}
	return json.Unmarshal(b[i:], l) == nil && l.V == 1
}

// Message is one message, as sent.
type Message struct {
	ID   string    `json:"id"`
	From string    `json:"from,omitempty"` // the sending session; "" for a script
	Text string    `json:"text"`
	At   time.Time `json:"at"`
}

func validMsgID(s string) bool {
	if len(s) != 18 || s[:2] != "m-" {
		return false
	}
	for _, c := range []byte(s[2:]) {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
