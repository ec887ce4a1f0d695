package journal

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"cairn/internal/vfs"
)

// TestExclusiveWaitsForAnotherWriter: a journal shared by processes (the
// usage ledger) must not take another process's line, caught halfway
// through its write, for a torn tail to cut. Another process is played by
// a second open file holding the lock while it writes a line in two
// halves; an Exclusive OpenWriter waits for it and cuts nothing, while a
// plain one would take the half line for a torn tail.
func TestExclusiveWaitsForAnotherWriter(t *testing.T) {
	dir := t.TempDir()
	d, err := vfs.OpenDisk(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	first := marshal(t, newItem(1, "already there")) + "\n"
	other := marshal(t, newItem(2, "written by another process"))
	putFile(t, d, "shared.jsonl", []byte(first))

	f, err := os.OpenFile(filepath.Join(dir, "shared.jsonl"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(other[:len(other)/2]); err != nil {
		t.Fatal(err)
	}

	type opened struct {
		w   *Writer
		rep Repair
		err error
	}
	done := make(chan opened, 1)
	go func() {
		w, rep, err := OpenWriter(d, "shared.jsonl", Options{Exclusive: true, Now: fixedNow})
		done <- opened{w, rep, err}
	}()
	select {
	case o := <-done:
		t.Fatalf("OpenWriter did not wait for the lock: %+v", o)
	case <-time.After(100 * time.Millisecond):
	}
	if _, err := f.WriteString(other[len(other)/2:] + "\n"); err != nil {
		t.Fatal(err)
	}
	f.Close() // releases the lock
	o := <-done
	if o.err != nil {
		t.Fatal(o.err)
	}
	if o.rep.Cut != 0 {
		t.Fatalf("cut %d bytes of another writer's line", o.rep.Cut)
	}
	mine := newItem(3, "mine")
	if err := o.w.Append(mine); err != nil {
		t.Fatal(err)
	}
	o.w.Close()
	got, st := readAll(t, d, "shared.jsonl")
	equalLines(t, got, []string{first[:len(first)-1], other, marshal(t, mine)})
	if st.Torn != 0 || len(st.Bad) != 0 {
		t.Fatalf("stats %+v", st)
	}

	// Without the lock the same half line is cut as a torn tail: the
	// test sees what Exclusive prevents.
	putFile(t, d, "plain.jsonl", []byte(first+other[:len(other)/2]))
	w, rep, err := OpenWriter(d, "plain.jsonl", Options{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	if rep.Cut == 0 {
		t.Fatal("a half line was not taken for a torn tail")
	}
}
