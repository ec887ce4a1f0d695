package term

import (
	"io"
	"unicode"
	"unicode/utf8"
)

// Key is one decoded keystroke. KeyRune carries the typed rune in the
// event; every other key stands alone.
type Key int

// The keys the decoder knows. Ctrl-A/E decode as KeyHome/KeyEnd, Ctrl-B/F
// as KeyLeft/KeyRight, Ctrl-P/N as KeyUp/KeyDown, Ctrl-H as KeyBackspace.
const (
	KeyUnknown   Key = iota // a byte or sequence with no meaning here; ignored
	KeyRune                 // a printable character
	KeyEnter                // CR or LF (CR LF counts once)
	KeyBackspace            // DEL (0x7f) or Ctrl-H
	KeyDelete               // ESC [ 3 ~
	KeyLeft
	KeyRight
	KeyUp
	KeyDown
	KeyHome
	KeyEnd
	KeyPgUp  // ESC [ 5 ~
	KeyPgDn  // ESC [ 6 ~
	KeyEsc   // a lone ESC: the last byte of what one read returned
	KeyCtrlC // 0x03
	KeyCtrlD // 0x04
	KeyCtrlK // kill to the end of the line
	KeyCtrlU // kill to the start of the line
	KeyCtrlW // kill the word before the cursor
	KeyAltZ  // ESC z
	KeyAltR  // ESC r
	KeyF9    // ESC [ 20 ~
	numKeys  // not a key
)

var keyNames = [...]string{
	KeyUnknown: "Unknown", KeyRune: "Rune", KeyEnter: "Enter", KeyBackspace: "Backspace",
	KeyDelete: "Delete", KeyLeft: "Left", KeyRight: "Right", KeyUp: "Up", KeyDown: "Down",
	KeyHome: "Home", KeyEnd: "End", KeyPgUp: "PgUp", KeyPgDn: "PgDn", KeyEsc: "Esc",
	KeyCtrlC: "Ctrl-C", KeyCtrlD: "Ctrl-D", KeyCtrlK: "Ctrl-K", KeyCtrlU: "Ctrl-U",
	KeyCtrlW: "Ctrl-W", KeyAltZ: "Alt+Z", KeyAltR: "Alt+R", KeyF9: "F9",
}

func (k Key) String() string {
	if k >= 0 && k < numKeys {
		return keyNames[k]
	}
	return "Key(?)"
}

// event is one decoded keystroke.
type event struct {
	key Key
	r   rune // for KeyRune
}

// decoder turns terminal input bytes into events. It reads from any
// io.Reader, so it is tested without a terminal.
//
// A terminal in raw mode hands over what has arrived when read; an escape
// sequence arrives whole. So an ESC that ends what one read returned is the
// Esc key, while an ESC with bytes after it starts a sequence (or an Alt
// key). An escape sequence or UTF-8 character cut short by the end of a
// read waits for the next read.
type decoder struct {
	r   io.Reader
	buf []byte
	tmp [256]byte
}

func newDecoder(r io.Reader) *decoder { return &decoder{r: r} }

// next returns the next event. At end of input the bytes left over decode
// as best they can, then the reader's error is returned.
func (d *decoder) next() (event, error) {
	for {
		if len(d.buf) > 0 {
			ev, n := decode(d.buf)
			if n > 0 {
				d.buf = d.buf[n:]
				return ev, nil
			}
			if len(d.buf) == 1 && d.buf[0] == 0x1b {
				d.buf = d.buf[:0]
				return event{key: KeyEsc}, nil
			}
		}
		n, err := d.r.Read(d.tmp[:])
		d.buf = append(d.buf, d.tmp[:n]...)
		if err != nil && n == 0 {
			if len(d.buf) > 0 {
				// Cut short for good: the rest means nothing.
				lone := len(d.buf) == 1 && d.buf[0] == 0x1b
				d.buf = d.buf[:0]
				if lone {
					return event{key: KeyEsc}, nil
				}
				return event{key: KeyUnknown}, nil
			}
			return event{}, err
		}
	}
}

// decode decodes the first keystroke in b (not empty). n is the number of
// bytes it took; n == 0 means b ends before the keystroke does.
func decode(b []byte) (ev event, n int) {
	c := b[0]
	switch {
	case c == 0x1b:
		return decodeEsc(b)
	case c == '\r':
		if len(b) > 1 && b[1] == '\n' {
			return event{key: KeyEnter}, 2
		}
		return event{key: KeyEnter}, 1
	case c == '\n':
		return event{key: KeyEnter}, 1
	case c < 0x20:
		return event{key: controlKeys[c]}, 1
	case c == 0x7f:
		return event{key: KeyBackspace}, 1
	case c < utf8.RuneSelf:
		return event{key: KeyRune, r: rune(c)}, 1
	}
	if !utf8.FullRune(b) {
		return event{}, 0
	}
	r, size := utf8.DecodeRune(b)
	if r == utf8.RuneError || !unicode.IsPrint(r) {
		return event{key: KeyUnknown}, size
	}
	return event{key: KeyRune, r: r}, size
}

var controlKeys = [0x20]Key{
	0x01: KeyHome, 0x02: KeyLeft, 0x03: KeyCtrlC, 0x04: KeyCtrlD, 0x05: KeyEnd,
	0x06: KeyRight, 0x08: KeyBackspace, 0x0b: KeyCtrlK, 0x0e: KeyDown, 0x10: KeyUp,
	0x15: KeyCtrlU, 0x17: KeyCtrlW,
}

// decodeEsc decodes a keystroke starting with ESC.
func decodeEsc(b []byte) (event, int) {
	if len(b) < 2 {
		return event{}, 0
	}
	switch b[1] {
	case '[':
		return decodeCSI(b)
	case 'O':
		if len(b) < 3 {
			return event{}, 0
		}
		return event{key: ss3Keys(b[2])}, 3
	case 0x1b:
		return event{key: KeyEsc}, 1
	case 'z', 'Z':
		return event{key: KeyAltZ}, 2
	case 'r', 'R':
		return event{key: KeyAltR}, 2
	}
	if b[1] < utf8.RuneSelf {
		return event{key: KeyUnknown}, 2
	}
	// ESC then a multi-byte character: Alt with it, meaning nothing here.
	if !utf8.FullRune(b[1:]) {
		return event{}, 0
	}
	_, size := utf8.DecodeRune(b[1:])
	return event{key: KeyUnknown}, 1 + size
}

// decodeCSI decodes ESC [ parameters intermediates final.
func decodeCSI(b []byte) (event, int) {
	i := 2
	for i < len(b) && b[i] >= 0x30 && b[i] <= 0x3f {
		i++
	}
	params := b[2:i]
	for i < len(b) && b[i] >= 0x20 && b[i] <= 0x2f {
		i++
	}
	if i == len(b) {
		return event{}, 0
	}
	final := b[i]
	if final < 0x40 || final > 0x7e {
		// Not a sequence after all: drop what was read of it.
		return event{key: KeyUnknown}, i
	}
	n := i + 1
	switch final {
	case 'A':
		return event{key: KeyUp}, n
	case 'B':
		return event{key: KeyDown}, n
	case 'C':
		return event{key: KeyRight}, n
	case 'D':
		return event{key: KeyLeft}, n
	case 'H':
		return event{key: KeyHome}, n
	case 'F':
		return event{key: KeyEnd}, n
	case '~':
		switch firstParam(params) {
		case 1, 7:
			return event{key: KeyHome}, n
		case 3:
			return event{key: KeyDelete}, n
		case 4, 8:
			return event{key: KeyEnd}, n
		case 5:
			return event{key: KeyPgUp}, n
		case 6:
			return event{key: KeyPgDn}, n
		case 20:
			return event{key: KeyF9}, n
		}
	}
	return event{key: KeyUnknown}, n
}

// firstParam is the first numeric parameter of a CSI sequence ("20;2" ->
// 20), -1 when there is none.
func firstParam(p []byte) int {
	v, digits := 0, 0
	for _, c := range p {
		if c < '0' || c > '9' {
			break
		}
		if v < 1<<16 {
			v = v*10 + int(c-'0')
		}
		digits++
	}
	if digits == 0 {
		return -1
	}
	return v
}

func ss3Keys(c byte) Key {
	switch c {
	case 'A':
		return KeyUp
	case 'B':
		return KeyDown
	case 'C':
		return KeyRight
	case 'D':
		return KeyLeft
	case 'H':
		return KeyHome
	case 'F':
		return KeyEnd
	}
	return KeyUnknown
}
