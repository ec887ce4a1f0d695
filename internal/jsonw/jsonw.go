// Package jsonw appends JSON values to byte slices without reflection, for
// the few hot paths (the picker index, session listings, the lines a turn
// appends to its journals) where encoding/json's reflection costs more than
// the work around it.
package jsonw

import (
	"encoding/binary"
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
		if i+8 <= len(s) && plain8(s[i:i+8]) {
			i += 8 // most strings are plain ASCII: eight bytes a step
			continue
		}
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

// plain8 reports whether the 8 bytes of s are all printable ASCII other
// than '"' and '\\': bytes String copies as they are. (It may answer false
// for some such bytes; String then looks at them one by one.)
func plain8(s string) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	x := binary.LittleEndian.Uint64([]byte(s))
	q := x ^ ('"' * ones)
	bs := x ^ ('\\' * ones)
	// A byte below 0x20, or equal to '"' or '\\' (zero after the xor), or
	// with its top bit set.
	special := (x - 0x20*ones) | (q - ones) | (bs - ones) | x
	return special&highs == 0
}

// TimeLayout is how cairn writes times: RFC 3339 in UTC with milliseconds.
const TimeLayout = timefmt.Layout

// Time appends t as a JSON string in TimeLayout, or "" for the zero time.
func Time(b []byte, t time.Time) []byte {
	b = append(b, '"')
	if t.IsZero() {
		return append(b, '"')
	}
	unix := t.Unix()
	days := unix / 86400
	if unix%86400 < 0 {
		days--
	}
	secs := int(unix - days*86400)
	y, mo, d := civil(days)
	h, mi, sec := secs/3600, secs/60%60, secs%60
	if y < 0 || y > 9999 {
		b = t.UTC().AppendFormat(b, TimeLayout)
		return append(b, '"')
	}
	// The fixed layout by hand: several times faster than AppendFormat,
	// which matters at 100,000 rows.
	b = pad(b, y, 4)
	b = append(b, '-')
	b = pad(b, mo, 2)
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

// civil is the date of the proleptic Gregorian calendar days after
// 1970-01-01: the algorithm of Howard Hinnant's date library, a few
// divisions where time.Time's Date and Clock take several times as long,
// which matters at 100,000 rows.
func civil(days int64) (y, mo, d int) {
	z := days + 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era--
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = int(doy - (153*mp+2)/5 + 1)
	if mp < 10 {
		mo = int(mp + 3)
	} else {
		mo = int(mp - 9)
	}
	y = int(yoe + era*400)
	if mo <= 2 {
		y++
	}
	return y, mo, d
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
