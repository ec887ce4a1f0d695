package index

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"cairn/internal/vfs"
)

// Head reads the first entries of the saved listing, newest first, and its
// count, without the records: a record deleted since is still in it until
// the next Refresh.
func TestHead(t *testing.T) {
	onEachFS(t, func(t *testing.T, fsys vfs.FS) {
		x := Open(fsys, ws)
		if _, _, err := x.Head(3, nil); err == nil {
			t.Fatal("Head with no index.json: no error")
		}
		for n := range 10 {
			writeRec(t, fsys, rec(n, "s", at(n)))
		}
		refresh(t, x, true, 10)
		got, total, err := x.Head(3, nil)
		if err != nil || total != 10 || !slices.Equal(ids(got), []string{id(9), id(8), id(7)}) {
			t.Fatalf("Head(3) = %v, %d, %v", ids(got), total, err)
		}
		// skip leaves entries out and reads on.
		got, _, err = x.Head(3, func(e *Entry) bool { return e.UpdatedAt.After(at(7)) })
		if err != nil || !slices.Equal(ids(got), []string{id(7), id(6), id(5)}) {
			t.Fatalf("Head(3) skipping the two newest = %v, %v", ids(got), err)
		}
		got, total, err = x.Head(50, nil)
		if err != nil || total != 10 || len(got) != 10 || got[9].ID != id(0) || got[0].Title != "s" || got[0].Items != 9 {
			t.Fatalf("Head(50) = %+v, %d, %v", got, total, err)
		}
		remove(t, fsys, id(9)+".json")
		if got, _, _ := x.Head(1, nil); len(got) != 1 || got[0].ID != id(9) {
			t.Fatalf("Head reads the records: %v", ids(got))
		}
		refresh(t, x, true, 0)
		if got, total, _ := x.Head(1, nil); total != 9 || got[0].ID != id(8) {
			t.Fatalf("Head after the refresh = %v, %d", ids(got), total)
		}
	})
}

// Head reads only as far as it needs: the rest of the file may be anything.
func TestHeadReadsOnlyThePrefix(t *testing.T) {
	fsys := vfs.NewMem()
	for n := range 10 {
		writeRec(t, fsys, rec(n, "s", at(n)))
	}
	x := Open(fsys, ws)
	refresh(t, x, true, 10)
	data, err := vfs.ReadFile(fsys, ws+"/index.json")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	cut := strings.Join(lines[:4], "") + "garbage that is not JSON"
	writeIndex(t, fsys, cut)
	if got, total, err := x.Head(3, nil); err != nil || total != 10 || len(got) != 3 {
		t.Fatalf("Head(3) over a damaged tail = %v, %d, %v", ids(got), total, err)
	}
	if _, _, err := x.Head(4, nil); !errors.Is(err, errCache) {
		t.Fatalf("Head(4) reads into the damage: %v", err)
	}
}

// A file Head cannot vouch for is an error, so the caller refreshes.
func TestHeadRejects(t *testing.T) {
	fsys := vfs.NewMem()
	for n := range 3 {
		writeRec(t, fsys, rec(n, "s", at(n)))
	}
	x := Open(fsys, ws)
	refresh(t, x, true, 3)
	data, err := vfs.ReadFile(fsys, ws+"/index.json")
	if err != nil {
		t.Fatal(err)
	}
	good := string(data)
	lines := strings.SplitAfter(good, "\n")
	swapped := lines[0] + lines[2] + lines[1] + strings.Join(lines[3:], "")
	for name, s := range map[string]string{
		"earlier build, no count": strings.Replace(good, `"count":3,`, "", 1),
		"other version":           strings.Replace(good, `"v":1`, `"v":2`, 1),
		"count too big":           strings.Replace(good, `"count":3`, `"count":4`, 1),
		"count too small":         strings.Replace(good, `"count":3`, `"count":2`, 1),
		"not sorted":              swapped,
		"cut short":               strings.Join(lines[:2], ""),
		"not JSON":                "garbage\n",
		"first line a bare count": strings.Replace(good, `{"v":1,"count":`, "", 1),
		"empty":                   "",
	} {
		writeIndex(t, fsys, s)
		if got, _, err := x.Head(10, nil); err == nil {
			t.Errorf("%s: Head = %v, want an error", name, ids(got))
		}
	}
}

// An index.json of an earlier build (no count) is read by Refresh and
// written again with its count, so that Head can serve the next listing.
func TestRefreshAddsCount(t *testing.T) {
	onEachFS(t, func(t *testing.T, fsys vfs.FS) {
		for n := range 3 {
			writeRec(t, fsys, rec(n, "s", at(n)))
		}
		refresh(t, Open(fsys, ws), true, 3)
		data, err := vfs.ReadFile(fsys, ws+"/index.json")
		if err != nil {
			t.Fatal(err)
		}
		writeIndex(t, fsys, strings.Replace(string(data), `"count":3,`, "", 1))
		x := Open(fsys, ws)
		if _, _, err := x.Head(1, nil); err == nil {
			t.Fatal("Head read a file without its count")
		}
		refresh(t, x, true, 0) // the cache is used: nothing parsed
		if got, total, err := x.Head(1, nil); err != nil || total != 3 || got[0].ID != id(2) {
			t.Fatalf("Head after the refresh = %v, %d, %v", ids(got), total, err)
		}
	})
}
