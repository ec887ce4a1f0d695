// Package jsonw appends JSON values to byte slices without reflection, for
// the few hot paths (the picker index, session listings, the lines a turn
// appends to its journals) where encoding/json's reflection costs more than
// the work around it.
package jsonw

import (
	"strconv"
	"time"
	"unicode/utf8"

	"cairn/internal/timefmt"
)

// String appends s as a JSON string, byte for byte as encoding/json writes
// it without HTML escaping: invalid UTF-8 becomes U+FFFD.
func String(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			// Line and paragraph separators, escaped as encoding/json
			// does, for readers that take them for line ends.
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&15])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// TimeLayout is how cairn writes times: RFC 3339 in UTC with milliseconds.
const TimeLayout = timefmt.Layout

// Time appends t as a JSON string in TimeLayout, or "" for the zero time.
func Time(b []byte, t time.Time) []byte {
	b = append(b, '"')
	if t.IsZero() {
		return append(b, '"')
	}
	t = t.UTC()
	y, mo, d := t.Date()
	h, mi, sec := t.Clock()
	if y < 0 || y > 9999 {
		b = t.AppendFormat(b, TimeLayout)
		return append(b, '"')
	}
	// The fixed layout by hand: several times faster than AppendFormat,
	// which matters at 100,000 rows.
	b = pad(b, y, 4)
	b = append(b, '-')
	b = pad(b, int(mo), 2)
	b = append(b, '-')
	b = pad(b, d, 2)
	b = append(b, 'T')
	b = pad(b, h, 2)
	b = append(b, ':')
	b = pad(b, mi, 2)
	b = append(b, ':')
	b = pad(b, sec, 2)
	b = append(b, '.')
	b = pad(b, t.Nanosecond()/1e6, 3)
	return append(b, 'Z', '"')
}

// pad appends n in decimal with leading zeros to width digits.
func pad(b []byte, n, width int) []byte {
	var buf [4]byte
	for i := width - 1; i >= 0; i-- {
		buf[i] = byte('0' + n%10)
		n /= 10
	}
	return append(b, buf[:width]...)
}

// Int appends n.
func Int(b []byte, n int64) []byte { return strconv.AppendInt(b, n, 10) }

// Bool appends v.
func Bool(b []byte, v bool) []byte { return strconv.AppendBool(b, v) }
