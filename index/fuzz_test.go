package index

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

func sampleCache() *cache {
	c := &cache{
		entries: []Entry{
			{ID: id(1), Title: "quote \" backslash \\ newline \n tab \t nul \x00 bell \x07 é 日 \u2028 <&>", TitleSource: "user",
				CreatedAt: t0, UpdatedAt: at(5).Add(123456 * time.Nanosecond), OpenedAt: at(6), Items: 12, Bytes: 1 << 40,
				Branch: "feature/x", Tier: "transcript", Pinned: true, ForkOf: id(0), Path: "/home/me/my proj", Journal: 1 << 33},
			{ID: id(2), Title: "bad utf8 \xff\xfe end", Items: -1, Journal: -1},
			{ID: id(3), Journal: 5},
		},
		stats:    []statKey{{1, 2, 3}, {0, -5, 1 << 63}, {4, 5, 0}},
		problems: []Problem{{Name: "sessions/" + id(4) + ".json", Err: "index: malformed record: \"x\""}},
		pstats:   []statKey{{7, 8, 9}},
	}
	return c
}

func TestCacheRoundTrip(t *testing.T) {
	c := sampleCache()
	data := c.encode()
	if !json.Valid(data) {
		t.Fatalf("index.json is not valid JSON:\n%s", data)
	}
	got, err := decodeCache(data)
	if err != nil {
		t.Fatalf("decode: %v\n%s", err, data)
	}
	c.entries[1].Title = "bad utf8 \ufffd\ufffd end" // as encoding/json would have it
	if !slices.EqualFunc(got.entries, c.entries, sameEntry) {
		t.Errorf("entries:\n%+v\nwant\n%+v", got.entries, c.entries)
	}
	if !slices.Equal(got.stats, c.stats) || !slices.Equal(got.problems, c.problems) || !slices.Equal(got.pstats, c.pstats) {
		t.Errorf("stats or problems differ: %+v", got)
	}
	// encoding/json reads the file the same way.
	var std struct {
		V       int
		Entries []struct {
			ID        string    `json:"id"`
			Title     string    `json:"title"`
			UpdatedAt time.Time `json:"updated_at"`
			Stat      struct {
				Size  int64  `json:"size"`
				Mtime int64  `json:"mtime_ns"`
				Ino   uint64 `json:"ino"`
			} `json:"stat"`
		}
	}
	if err := json.Unmarshal(data, &std); err != nil {
		t.Fatal(err)
	}
	if std.V != 1 || len(std.Entries) != 3 || std.Entries[0].Title != c.entries[0].Title ||
		!std.Entries[0].UpdatedAt.Equal(c.entries[0].UpdatedAt) || std.Entries[1].Stat.Ino != 1<<63 {
		t.Errorf("encoding/json reads %+v", std)
	}
	// Whitespace, unknown fields and escapes a person might write are fine.
	hand := `{ "entries" : [ {"id":"` + id(9) + `", "x":{"y":[1,2.5e3,null,true,false,"\"]"]}, "title":"a\u00e9\n", "journal":1,
	  "stat":{"size":1,"mtime_ns":2,"ino":3,"future":"x"}} ], "v" : 1, "later":[] }`
	got, err = decodeCache([]byte(hand))
	if err != nil || len(got.entries) != 1 || got.entries[0].Title != "aé\n" || got.stats[0] != (statKey{1, 2, 3}) {
		t.Errorf("hand-written index: %+v, %v", got, err)
	}
}

func TestDecodeCacheRejects(t *testing.T) {
	good := string(sampleCache().encode())
	for _, s := range []string{
		"", "{}", `{"v":1}x`, `{"v":2,"entries":[]}`, `{"v":1,"entries":[{}]}`,
		`{"v":1,"entries":[{"id":"a","updated_at":"not a time"}]}`,
		`{"v":1,"entries":[{"id":"a","items":"7"}]}`,
		`{"v":1,"problems":[{"name":"x","err":"y"}]}`,
		strings.Repeat("[", 100000),
		`{"v":1,"x":` + strings.Repeat("[", 1000) + strings.Repeat("]", 1000) + `}`,
		good[:len(good)-3], strings.Replace(good, `"v":1`, `"v":"1"`, 1),
		strings.Replace(good, `"size"`, `"size":`, 1),
	} {
		if c, err := decodeCache([]byte(s)); err == nil {
			t.Errorf("decodeCache(%.40q) = %+v, want an error", s, c)
		}
	}
}

func FuzzDecodeCache(f *testing.F) {
	f.Add(sampleCache().encode())
	f.Add([]byte(`{"v":1,"entries":[]}`))
	f.Add([]byte(`{"v":1,"entries":[{"id":"a\u0041","stat":{"size":1}}],"problems":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := decodeCache(slices.Clone(data)) // it keeps the buffer
		if err != nil {
			return
		}
		// What decodes re-encodes to something that decodes the same.
		again, err := decodeCache(c.encode())
		if err != nil {
			t.Fatalf("re-encoded index does not decode: %v", err)
		}
		if len(again.entries) != len(c.entries) || !slices.Equal(again.stats, c.stats) {
			t.Fatalf("round trip changed the cache")
		}
	})
}

func FuzzParseRecord(f *testing.F) {
	r, _ := json.Marshal(rec(1, "title", at(1)))
	f.Add(r)
	f.Add([]byte(`{"v":1,"items":3,"counts":{"items":"x"}}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := parseRecord(id(1), data)
		if err == nil && e.ID != id(1) {
			t.Fatalf("entry id %q", e.ID)
		}
		if err != nil && e != (Entry{}) {
			t.Fatalf("an error with an entry")
		}
	})
}
