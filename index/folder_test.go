package index

import (
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

// A record written in place (not renamed) leaves the folder's time alone,
// so a listing that trusts the folder does not see it; the next change in
// the folder brings it in, and the record's own stat decides then.
func TestInPlaceWriteSeenAtNextFolderChange(t *testing.T) {
	d := newDisk(t)
	for n := range 3 {
		writeRec(t, d, rec(n+1, "s", at(n)))
	}
	sessions := filepath.Join(d.Dir(), ws, "sessions")
	past := time.Now().Add(-time.Minute)
	os.Chtimes(sessions, past, past)
	x := Open(d, ws)
	refresh(t, x, true, 3)
	writeFast(t, d, id(2)+".json", []byte("{garbage"))
	os.Chtimes(sessions, past, past) // as if the folder never changed
	y := Open(d, ws)
	refresh(t, y, true, 0)
	if len(y.Entries()) != 3 {
		t.Fatalf("%d entries under a trusted folder", len(y.Entries()))
	}
	writeRec(t, d, rec(4, "new", at(9))) // any change in the folder
	refresh(t, y, true, 2)
	if len(y.Entries()) != 3 || len(y.Problems()) != 1 {
		t.Fatalf("after the folder changed: %d entries, %d problems", len(y.Entries()), len(y.Problems()))
	}
}
