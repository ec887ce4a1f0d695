package index

import (
	"math"
	"strings"
	"time"
)

// fastEntry decodes one entry line of index.json as appendEntry writes it:
// its fields in appendEntry's order, each string without an escape, each
// time in the format's own layout. It reports false, with e and st in any
// state, for anything else (a field out of order or unknown, an escape, a
// time or number of another form); the caller then decodes the line with
// the scanner, which reads every line fastEntry reads to the same entry.
// At 100,000 entries the scanner's key-by-key dispatch was most of the
// cost of a listing's decode.
func fastEntry(line string, e *Entry, st *statKey) bool {
	r := line
	var ok bool
	if r, ok = strings.CutPrefix(r, `{"id":"`); !ok {
		return false
	}
	if e.ID, r, ok = fastString(r); !ok || e.ID == "" {
		return false
	}
	if e.Title, r, ok = fastField(r, `,"title":"`); !ok {
		return false
	}
	if e.TitleSource, r, ok = fastField(r, `,"title_source":"`); !ok {
		return false
	}
	if e.CreatedAt, r, ok = fastTimeField(r, `,"created_at":"`); !ok {
		return false
	}
	if e.UpdatedAt, r, ok = fastTimeField(r, `,"updated_at":"`); !ok {
		return false
	}
	if e.OpenedAt, r, ok = fastTimeField(r, `,"opened_at":"`); !ok {
		return false
	}
	var n int64
	if n, r, ok = fastIntField(r, `,"items":`); !ok {
		return false
	}
	e.Items = int(n)
	if e.Bytes, r, ok = fastIntField(r, `,"bytes":`); !ok {
		return false
	}
	if e.Branch, r, ok = fastField(r, `,"branch":"`); !ok {
		return false
	}
	if e.Tier, r, ok = fastField(r, `,"tier":"`); !ok {
		return false
	}
	if rest, ok := strings.CutPrefix(r, `,"pinned":true`); ok {
		e.Pinned, r = true, rest
	}
	if e.ForkOf, r, ok = fastField(r, `,"fork_of":"`); !ok {
		return false
	}
	if e.Path, r, ok = fastField(r, `,"path":"`); !ok {
		return false
	}
	if e.Remote, r, ok = fastField(r, `,"remote":"`); !ok {
		return false
	}
	if e.Journal, r, ok = fastIntField(r, `,"journal":`); !ok {
		return false
	}
	if r, ok = strings.CutPrefix(r, `,"stat":{"size":`); !ok {
		return false
	}
	if st.size, r, ok = fastInt(r); !ok {
		return false
	}
	if r, ok = strings.CutPrefix(r, `,"mtime_ns":`); !ok {
		return false
	}
	if st.mtime, r, ok = fastInt(r); !ok {
		return false
	}
	if r, ok = strings.CutPrefix(r, `,"ino":`); !ok {
		return false
	}
	var ino int64
	if strings.HasPrefix(r, "-") {
		return false
	}
	if ino, r, ok = fastInt(r); !ok {
		return false
	}
	st.ino = uint64(ino)
	return r == "}}"
}

// fastField reads the string field that r starts with when it starts with
// prefix (its name and opening quote); an absent field is "".
func fastField(r, prefix string) (string, string, bool) {
	rest, ok := strings.CutPrefix(r, prefix)
	if !ok {
		return "", r, true
	}
	return fastString(rest)
}

// fastString reads the rest of a string whose opening quote is read: up to
// the next quote, with no backslash before it.
func fastString(r string) (string, string, bool) {
	i := strings.IndexByte(r, '"')
	if i < 0 || strings.IndexByte(r[:i], '\\') >= 0 {
		return "", r, false
	}
	return r[:i], r[i+1:], true
}

func fastTimeField(r, prefix string) (time.Time, string, bool) {
	rest, ok := strings.CutPrefix(r, prefix)
	if !ok {
		return time.Time{}, r, true
	}
	if len(rest) < len(timeLayout)+1 || rest[len(timeLayout)] != '"' {
		return time.Time{}, r, false
	}
	t, ok := layoutTime(rest[:len(timeLayout)])
	return t, rest[len(timeLayout)+1:], ok
}

func fastIntField(r, prefix string) (int64, string, bool) {
	rest, ok := strings.CutPrefix(r, prefix)
	if !ok {
		return 0, r, true
	}
	return fastInt(rest)
}

// fastInt reads a decimal number of 1 to 19 digits, perhaps negative, with
// no leading zero and within int64 (short of its least value): what
// strconv.AppendInt writes.
func fastInt(r string) (int64, string, bool) {
	neg := len(r) > 0 && r[0] == '-'
	i := 0
	if neg {
		i = 1
	}
	start := i
	var n uint64
	for i < len(r) && '0' <= r[i] && r[i] <= '9' {
		n = n*10 + uint64(r[i]-'0')
		i++
	}
	if d := i - start; d == 0 || d > 19 || d > 1 && r[start] == '0' || n > math.MaxInt64 {
		return 0, r, false
	}
	if neg {
		return -int64(n), r[i:], true
	}
	return int64(n), r[i:], true
}

// layoutTime parses a time in the format's own layout
// ("2026-11-29T09:12:03.120Z"): the time time.Date gives for its fields,
// or false when it is not in that layout or names no real date.
func layoutTime(s string) (time.Time, bool) {
	if len(s) != len(timeLayout) || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' ||
		s[16] != ':' || s[19] != '.' || s[23] != 'Z' {
		return time.Time{}, false
	}
	y, ok1 := digits(s[0:4])
	mo, ok2 := digits(s[5:7])
	d, ok3 := digits(s[8:10])
	h, ok4 := digits(s[11:13])
	mi, ok5 := digits(s[14:16])
	sec, ok6 := digits(s[17:19])
	ms, ok7 := digits(s[20:23])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7) || mo < 1 || mo > 12 || d < 1 || d > daysIn(mo, y) ||
		h >= 24 || mi >= 60 || sec >= 60 {
		return time.Time{}, false
	}
	unix := (daysFromCivil(y, mo, d)*24+int64(h))*3600 + int64(mi)*60 + int64(sec)
	return time.Unix(unix, int64(ms)*1e6).UTC(), true
}

// daysIn is the number of days of month mo (1-12) of year y.
func daysIn(mo, y int) int {
	switch mo {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil is the number of days from 1970-01-01 to the date y-mo-d
// of the proleptic Gregorian calendar (y from 0 to 9999): the civil
// algorithm of Howard Hinnant's date library, with years shifted by one
// 400-year era so that every division is of a positive number.
func daysFromCivil(y, mo, d int) int64 {
	if mo <= 2 {
		y--
	}
	y += 400
	era := y / 400
	yoe := y - era*400
	doy := (153*((mo+9)%12)+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era-1)*146097 + int64(doe) - 719468
}
