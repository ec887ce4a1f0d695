package index

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// scanEntry is the scanner's reading of one entry line: what fastEntry must
// agree with.
func scanEntry(line string) (Entry, statKey, bool) {
	var e Entry
	var st statKey
	s := &scanner{b: line}
	s.object(func(key string) { s.entryField(key, &e, &st) })
	s.ws()
	return e, st, !s.bad && s.i == len(line) && e.ID != ""
}

// fastAgrees checks that fastEntry reads line as the scanner does whenever
// it reads it at all, and reports whether it did.
func fastAgrees(t *testing.T, line string) bool {
	t.Helper()
	var e Entry
	var st statKey
	if !fastEntry(line, &e, &st) {
		return false
	}
	want, wst, ok := scanEntry(line)
	if !ok {
		t.Fatalf("fastEntry read a line the scanner rejects: %q", line)
	}
	if e != want || st != wst {
		t.Fatalf("line %q:\nfastEntry %+v %+v\nscanner   %+v %+v", line, e, st, want, wst)
	}
	return true
}

// Every line appendEntry writes for an entry of plain strings and
// millisecond times is read by fastEntry, to the very entry the scanner
// reads; lines with escapes or other times are left to the scanner.
func TestFastEntryAgreesWithScanner(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	pick := func(s ...string) string { return s[r.IntN(len(s))] }
	when := func() time.Time {
		switch r.IntN(6) {
		case 0:
			return time.Time{}
		case 1:
			return time.Date(r.IntN(10000), time.Month(1+r.IntN(12)), 1+r.IntN(31), r.IntN(24), r.IntN(60), r.IntN(60), r.IntN(1000)*1e6, time.UTC)
		case 2:
			return time.Date(2024, 2, 29, 23, 59, 59, 999e6, time.UTC)
		case 3:
			return time.Date(1, 1, 1, 0, 0, 0, 1e6, time.UTC).Add(time.Duration(r.Int64()))
		case 4:
			return time.Unix(r.Int64N(1<<40)-1<<39, r.Int64N(1e9)).UTC() // sub-millisecond: not the layout
		}
		return time.UnixMilli(r.Int64N(1 << 42)).UTC()
	}
	num := func() int64 {
		switch r.IntN(5) {
		case 0:
			return 0
		case 1:
			return -r.Int64N(1 << 40)
		case 2:
			return math.MaxInt64
		case 3:
			return math.MinInt64
		}
		return r.Int64N(1 << 40)
	}
	fast := 0
	for range 20000 {
		e := Entry{ID: id(r.IntN(1 << 30)), Title: pick("", "plain title", `quote "q"`, "back\\slash", "tab\t", "é 日 \u2028", "ctl \x01", "bad \xff"),
			TitleSource: pick("", "prompt", "user"), CreatedAt: when(), UpdatedAt: when(), OpenedAt: when(),
			Items: int(num()), Bytes: num(), Branch: pick("", "main", "feature/x"), Tier: pick("", "full", "transcript"),
			Pinned: r.IntN(2) == 0, ForkOf: pick("", id(7)), Path: pick("", "/w", "/home/me/my proj"), Remote: pick("", "me@devbox:/srv/proj", `dev:/a "b"`)}
		st := statKey{size: num(), mtime: num(), ino: uint64(num())}
		line := string(appendEntry(nil, &e, st))
		if fastAgrees(t, line) {
			fast++
			if e.CreatedAt.Nanosecond()%1e6 != 0 || strings.ContainsAny(line, `\`) {
				t.Fatalf("fastEntry read a line it should leave to the scanner: %q", line)
			}
		}
	}
	if fast < 100 {
		t.Fatalf("fastEntry read only %d of 20000 lines", fast)
	}
	// The lines of a listing as cairn writes them are all read the fast way.
	for n := range 100 {
		e := Entry{ID: id(n + 1), Title: "fix the build", TitleSource: "prompt", CreatedAt: at(n), UpdatedAt: at(n + 1),
			OpenedAt: at(n), Items: n, Bytes: int64(n) * 1000, Tier: "full", Path: "/w"}
		line := string(appendEntry(nil, &e, statKey{size: 700, mtime: 1796135625022081796, ino: 10202757}))
		if !fastAgrees(t, line) {
			t.Fatalf("fastEntry did not read %q", line)
		}
	}
	// Hand-made lines: what fastEntry reads, the scanner reads alike.
	for _, line := range []string{
		`{"id":"a","stat":{"size":1,"mtime_ns":2,"ino":3}}`,
		`{"id":"a","stat":{"size":-0,"mtime_ns":-1,"ino":-0}}`,
		`{"id":"a","stat":{"size":01,"mtime_ns":2,"ino":3}}`,
		`{"id":"a","items":1.5,"stat":{"size":1,"mtime_ns":2,"ino":3}}`,
		`{"id":"a","items":9223372036854775808,"stat":{"size":1,"mtime_ns":2,"ino":3}}`,
		`{"id":"a","stat":{"size":1,"mtime_ns":2,"ino":18446744073709551615}}`,
		`{"id":"a","pinned":false,"stat":{"size":1,"mtime_ns":2,"ino":3}}`,
		`{"id":"a","title":null,"stat":{"size":1,"mtime_ns":2,"ino":3}}`,
		`{"id":"a","created_at":"2026-02-29T00:00:00.000Z","stat":{"size":1,"mtime_ns":2,"ino":3}}`,
		`{"id":"a","created_at":"2026-13-01T00:00:00.000Z","stat":{"size":1,"mtime_ns":2,"ino":3}}`,
		`{"id":"a","created_at":"2024-02-29T24:00:00.000Z","stat":{"size":1,"mtime_ns":2,"ino":3}}`,
		`{"id":"a","path":"/w","tier":"full","stat":{"size":1,"mtime_ns":2,"ino":3}}`,
		`{"id":"a","stat":{"size":1,"mtime_ns":2,"ino":3}} `,
		`{"id":"","stat":{"size":1,"mtime_ns":2,"ino":3}}`,
		`{"id":"a"}`,
	} {
		fastAgrees(t, line)
	}
}

// The date arithmetic of layoutTime is time.Date's over the years the
// layout can hold.
func TestLayoutTimeIsTimeDate(t *testing.T) {
	for y := 0; y <= 9999; y++ {
		for _, md := range [][2]int{{1, 1}, {2, 28}, {3, 1}, {12, 31}} {
			want := time.Date(y, time.Month(md[0]), md[1], 23, 59, 58, 7e6, time.UTC)
			got, ok := layoutTime(want.Format(timeLayout))
			if !ok || got != want {
				t.Fatalf("%v: layoutTime gives %v, %v", want, got, ok)
			}
		}
		leap := time.Date(y, 2, 29, 0, 0, 0, 0, time.UTC).Day() == 29
		if _, ok := layoutTime(strings.Replace("0000-02-29T00:00:00.000Z", "0000", want4(y), 1)); ok != leap {
			t.Fatalf("year %d: February 29th read %v", y, ok)
		}
	}
}

func want4(y int) string { return time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC).Format("2006") }

func FuzzFastEntry(f *testing.F) {
	c := sampleCache()
	for i := range c.entries {
		f.Add(string(appendEntry(nil, &c.entries[i], c.stats[i])))
	}
	f.Add(`{"id":"a","created_at":"2026-01-01T00:00:00.000Z","items":3,"stat":{"size":1,"mtime_ns":2,"ino":3}}`)
	f.Fuzz(func(t *testing.T, line string) { fastAgrees(t, line) })
}
