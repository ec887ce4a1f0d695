package index

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// streamAgrees checks that decodeStream reads data to what decodeCache
// reads whenever it reads it at all, and reports whether it did.
func streamAgrees(t *testing.T, data []byte) bool {
	t.Helper()
	got, ok := decodeStream(iotest.HalfReader(bytes.NewReader(data)), int64(len(data)), nil)
	if !ok {
		return false
	}
	want, err := decodeCache(bytes.Clone(data))
	if err != nil {
		t.Fatalf("decodeStream read what decodeCache rejects (%v): %.200q", err, data)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decodeStream and decodeCache differ on %.200q:\n%+v\n%+v", data, got, want)
	}
	return true
}

// An index as cairn writes it is read a block at a time to what the whole
// file decodes to, over blocks many times over (so a string kept from a
// block that was read over would show), with escapes, problems and
// unrecorded sessions; other layouts are left to decodeCache.
func TestDecodeStreamIsDecodeCache(t *testing.T) {
	c := sampleCache()
	c.folder, c.listedNS, c.unrecorded = statKey{1, 2, 3}, 99, []string{id(8), id(9)}
	if !streamAgrees(t, c.encode()) {
		t.Fatal("the sample index was not read a block at a time")
	}
	big := &cache{}
	for n := range 6000 {
		e := Entry{ID: id(n + 1), Title: strings.Repeat("t", n%300) + " \"q\" é", TitleSource: []string{"prompt", "user"}[n%2],
			CreatedAt: at(n), UpdatedAt: at(6000 - n), Items: n, Tier: "full", Path: "/w/" + strings.Repeat("p", n%3),
			Branch: "main", ForkOf: []string{"", id(1)}[n%2]}
		big.entries = append(big.entries, e)
		big.stats = append(big.stats, statKey{size: int64(n), mtime: int64(n) * 7, ino: uint64(n)})
	}
	data := big.encode()
	if len(data) < 4*streamBlock {
		t.Fatalf("the index is only %d bytes", len(data))
	}
	if !streamAgrees(t, data) {
		t.Fatal("the big index was not read a block at a time")
	}
	empty := (&cache{}).encode()
	if !streamAgrees(t, empty) {
		t.Fatalf("the empty index %q was not read a block at a time", empty)
	}
	for _, other := range []string{
		`{"v":1,"entries":[]}`, // an earlier build's: no count
		strings.Replace(string(c.encode()), "\n", "", -1),
		strings.Replace(string(c.encode()), `"count":3`, `"count":4`, 1),
		strings.Replace(string(c.encode()), `"count":3`, `"count":2`, 1),
		strings.Replace(string(c.encode()), `"listed_ns"`, `"v":1,"listed_ns"`, 1),
		strings.Replace(string(c.encode()), "},\n{", "}\n{", 1),
		string(c.encode()) + "x",
		string(c.encode()[:len(c.encode())-10]),
		`{"v":1,"count":1,"entries":[` + "\n" + `{"id":"a","title":"` + strings.Repeat("x", streamBlock) + `"}` + "\n]}",
	} {
		if streamAgrees(t, []byte(other)) {
			t.Errorf("decodeStream read %.80q", other)
		}
	}
}

func FuzzDecodeStream(f *testing.F) {
	f.Add(sampleCache().encode())
	f.Add((&cache{}).encode())
	f.Add([]byte("{\"v\":1,\"count\":1,\"entries\":[\n{\"id\":\"a\",\"stat\":{\"size\":1,\"mtime_ns\":2,\"ino\":3}}\n] , \"x\":[1]}"))
	f.Fuzz(func(t *testing.T, data []byte) { streamAgrees(t, data) })
}
