package bgwork

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Limits of a report. Part of the tool's contract.
const (
	// MaxTitle is the most characters of a report's title: one line of a
	// compact card.
	MaxTitle = 80
	// MaxMessage is the most bytes of a report's message.
	MaxMessage = 64 << 10
)

// ReportInput is a report_to_parent call as a child makes it.
type ReportInput struct {
	Message string // required
	Title   string // optional: one line of at most MaxTitle characters
	Blocked bool   // the child cannot go on without what the message asks
}

// Report is a checked report: it always has a title.
type Report struct {
	Title   string `json:"title"`
	Message string `json:"message"`
	Blocked bool   `json:"blocked"`
}

// CheckReport checks a report_to_parent call. The message is required
// (not blank, valid UTF-8, at most MaxMessage bytes). A title, when given,
// is one line of at most MaxTitle characters (surrounding white space
// aside), else the call is refused; without one, the title is the first
// non-empty line of the message, its white space runs made one space, cut
// to MaxTitle characters. Blocked is false unless given.
func CheckReport(in ReportInput) (Report, error) {
	switch {
	case strings.TrimSpace(in.Message) == "":
		return Report{}, fmt.Errorf("%w: a report needs a message", ErrInvalid)
	case !utf8.ValidString(in.Message) || !utf8.ValidString(in.Title):
		return Report{}, fmt.Errorf("%w: a report is UTF-8 text", ErrInvalid)
	case len(in.Message) > MaxMessage:
		return Report{}, fmt.Errorf("%w: a report's message is at most %d bytes (this one has %d)", ErrInvalid, MaxMessage, len(in.Message))
	}
	title := strings.TrimSpace(in.Title)
	switch n := utf8.RuneCountInString(title); {
	case strings.ContainsAny(title, "\n\r"):
		return Report{}, fmt.Errorf("%w: a report's title is one line", ErrInvalid)
	case n > MaxTitle:
		return Report{}, fmt.Errorf("%w: a report's title is at most %d characters (this one has %d)", ErrInvalid, MaxTitle, n)
	case n == 0:
		title = firstLine(in.Message, MaxTitle)
	}
	return Report{Title: title, Message: in.Message, Blocked: in.Blocked}, nil
}

// firstLine is the first line of s with something on it, its white space
// runs made one space, cut to n characters.
func firstLine(s string, n int) string {
	for l := range strings.Lines(s) {
		if f := strings.Fields(l); len(f) > 0 {
			t := strings.Join(f, " ")
			if utf8.RuneCountInString(t) > n {
				t = string([]rune(t)[:n])
			}
			return strings.TrimRight(t, " ")
		}
	}
	return ""
}
