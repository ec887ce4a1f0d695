package index

import (
	"reflect"
	"strings"
	"testing"
)

// A big index.json decodes on every core to exactly what it encodes, and a
// file of another layout (the same entries on one line) decodes the same
// way in order.
func TestDecodeParallelRoundTrip(t *testing.T) {
	c := &cache{}
	for n := range 5000 {
		e := Entry{ID: id(n + 1), Title: "t\"q\" é " + strings.Repeat("x", n%7), TitleSource: "prompt",
			CreatedAt: at(n), UpdatedAt: at(n + 1), Items: n, Bytes: int64(n) * 3, Tier: "full", Path: "/w", Branch: "main", Journal: int64(n) + 1}
		c.entries = append(c.entries, e)
		c.stats = append(c.stats, statKey{size: int64(n), mtime: int64(n) * 7, ino: uint64(n)})
	}
	data := c.encode()
	got, err := decodeCache(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.entries, c.entries) || !reflect.DeepEqual(got.stats, c.stats) {
		t.Fatal("the parallel decode differs from what was encoded")
	}
	oneLine := []byte(strings.ReplaceAll(string(data), ",\\n{", ",{"))
	again, err := decodeCache(oneLine)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again.entries, c.entries) {
		t.Fatal("the in-order decode of another layout differs")
	}
	// A broken line anywhere makes the whole file unusable, as before.
	broken := []byte(strings.Replace(string(data), `{"id":"`+id(2500), `{"id":`+id(2500), 1))
	if _, err := decodeCache(broken); err == nil {
		t.Fatal("a broken entry was accepted")
	}
}
