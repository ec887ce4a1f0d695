package index

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"cairn/internal/vfs"
)

// TestFolderTimeVouchesForListing: once the sessions folder has been still
// for a while, a refresh trusts the cached listing without listing the folder;
// any record written since (always a rename, so the folder's time moves) is
// seen at once; and a folder changed just before the listing is never trusted.
func TestFolderTimeVouchesForListing(t *testing.T) {
	d := newDisk(t)
	fsys := vfs.NewFaulty(d)
	for n := range 5 {
		writeRec(t, d, rec(n+1, "s", at(n)))
	}
	sessions := filepath.Join(d.Dir(), ws, "sessions")
	past := time.Now().Add(-time.Minute)
	os.Chtimes(sessions, past, past)

	x := Open(fsys, ws)
	refresh(t, x, true, 5) // lists the folder, records the folder's time
	lists := fsys.Calls(vfs.OpReadDir)

	y := Open(fsys, ws) // a new process: reads index.json only
	refresh(t, y, true, 0)
	if got := fsys.Calls(vfs.OpReadDir) - lists; got != 0 {
		t.Fatalf("an unchanged folder was listed %d times", got)
	}
	if len(y.Entries()) != 5 {
		t.Fatalf("%d entries from the cached listing", len(y.Entries()))
	}

	// A record replaced by rename moves the folder's time: seen at once.
	writeRec(t, d, rec(3, "renamed", at(9)))
	refresh(t, y, true, 1)
	if y.Entries()[0].Title != "renamed" {
		t.Fatalf("the new record was not seen: %q", y.Entries()[0].Title)
	}
	// Changed just now: the listing is taken again next time, not trusted.
	lists = fsys.Calls(vfs.OpReadDir)
	z := Open(fsys, ws)
	refresh(t, z, true, 0)
	if fsys.Calls(vfs.OpReadDir) == lists {
		t.Fatal("a listing taken right after a change was trusted")
	}
}

// A refresh that finds the listing unchanged but newly trustworthy keeps it
// sorted newest first (a regression: it once kept the folder's name order).
func TestUnchangedListingStaysSorted(t *testing.T) {
	d := newDisk(t)
	for n := range 4 {
		writeRec(t, d, rec(n+1, "s", at(n))) // ids ascend with age: name order is oldest first
	}
	x := Open(d, ws)
	refresh(t, x, true, 4) // the folder changed just now: not trusted yet
	past := time.Now().Add(-time.Minute)
	os.Chtimes(filepath.Join(d.Dir(), ws, "sessions"), past, past)
	y := Open(d, ws)
	refresh(t, y, true, 0)
	for i, e := range y.Entries() {
		if want := id(4 - i); e.ID != want {
			t.Fatalf("entry %d is %s, want %s: not newest first", i, e.ID, want)
		}
	}
	z := Open(d, ws) // and the cache it wrote is sorted too
	refresh(t, z, true, 0)
	if z.Entries()[0].ID != id(4) {
		t.Fatalf("the saved listing starts with %s", z.Entries()[0].ID)
	}
}

// A record written in place (not renamed) leaves the folder's time alone;
// the listing still sees it, through the record's own stat key: the
// record is parsed again, and one that no longer parses is a problem, left
// out of the entries.
func TestInPlaceWriteSeenUnderTrustedFolder(t *testing.T) {
	d := newDisk(t)
	for n := range 3 {
		writeRec(t, d, rec(n+1, "s", at(n)))
	}
	sessions := filepath.Join(d.Dir(), ws, "sessions")
	past := time.Now().Add(-time.Minute)
	os.Chtimes(sessions, past, past)
	x := Open(d, ws)
	refresh(t, x, true, 3)
	y := Open(d, ws)
	refresh(t, y, true, 0) // the folder and every record as cached: nothing parsed

	writeFast(t, d, id(2)+".json", []byte("garbage{{{\n"))
	os.Chtimes(sessions, past, past) // as if the folder never changed
	z := Open(d, ws)
	refresh(t, z, true, 1)
	if len(z.Entries()) != 2 || len(z.Problems()) != 1 || z.Problems()[0].Name != "sessions/"+id(2)+".json" {
		t.Fatalf("after an in-place write: entries %v, problems %v", ids(z.Entries()), z.Problems())
	}
	// The same Index sees it too, and a rewrite in place that parses is read.
	writeFast(t, d, id(2)+".json", mustJSON(t, rec(2, "rewritten in place", at(20))))
	os.Chtimes(sessions, past, past)
	refresh(t, z, true, 1)
	if got := titles(z.Entries()); len(got) != 3 || got[0] != "rewritten in place" {
		t.Fatalf("after a rewrite in place: %q", got)
	}
}

// The records are stat'ed while index.json is read, in batches on other
// threads (verifyAlong): a record written in place in any batch, the last
// one included, is still seen by a new Index under a trusted folder.
func TestInPlaceWriteSeenInEveryBatch(t *testing.T) {
	d := newDisk(t)
	const n = 2*streamBatch + 7
	writeRec(t, d, rec(1, "s", at(0)))
	for i := 1; i < n; i++ {
		writeFast(t, d, id(i+1)+".json", mustJSON(t, rec(i+1, "s", at(i))))
	}
	sessions := filepath.Join(d.Dir(), ws, "sessions")
	past := time.Now().Add(-time.Minute)
	os.Chtimes(sessions, past, past)
	refresh(t, Open(d, ws), true, n)
	refresh(t, Open(d, ws), true, 0) // trusted, every key as cached
	// Entries are newest first: record k is the (n-k)-th entry.
	for _, k := range []int{n, n - streamBatch - 3, 1} {
		writeFast(t, d, id(k)+".json", mustJSON(t, rec(k, fmt.Sprintf("rewritten %d", k), at(k-1))))
		os.Chtimes(sessions, past, past)
		x := Open(d, ws)
		refresh(t, x, true, 1)
		if got := x.Entries()[n-k].Title; got != fmt.Sprintf("rewritten %d", k) {
			t.Fatalf("record %d written in place: the listing says %q", k, got)
		}
	}
}
