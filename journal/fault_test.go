package journal

import (
	"errors"
	"io/fs"
	"syscall"
	"testing"

	"cairn/internal/vfs"
)

// TestFaults: ENOSPC and EIO on write and on sync give an error and break the
// writer; the file still reads cleanly; once the fault is gone a new writer
// works.
func TestFaults(t *testing.T) {
	for _, op := range []vfs.Op{vfs.OpWrite, vfs.OpSync} {
		for _, errno := range []error{syscall.ENOSPC, syscall.EIO} {
			for _, pol := range []SyncPolicy{SyncEvery, SyncManual} {
				t.Run(op.String()+"/"+errno.Error()+"/"+[]string{"every", "manual"}[pol], func(t *testing.T) {
					testFault(t, op, errno, pol)
				})
			}
		}
	}
}

func testFault(t *testing.T, op vfs.Op, errno error, pol SyncPolicy) {
	f := vfs.NewFaulty(vfs.NewMem())
	w, _, err := OpenWriter(f, "j.jsonl", Options{Sync: pol, Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	ok := newItem(0, "before")
	if err := w.Append(ok); err != nil {
		t.Fatal(err)
	}
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	f.Inject(vfs.Rule{Op: op, Path: "j.jsonl", Err: errno})

	// The failing call: Append under SyncEvery, Append or Sync under SyncManual.
	err = w.Append(newItem(1, "fails"))
	if pol == SyncManual && op == vfs.OpSync {
		if err != nil {
			t.Fatalf("unsynced Append: %v", err)
		}
		err = w.Sync()
	}
	if !errors.Is(err, errno) || errors.Is(err, ErrBroken) {
		t.Fatalf("failing call: %v, want %v", err, errno)
	}
	// Broken from now on, even once the fault is gone: never retried.
	f.Reset()
	syncs := f.Calls(vfs.OpSync)
	for _, call := range []func() error{
		func() error { return w.Append(newItem(2, "after")) },
		w.Sync,
		func() error { return w.AppendLine([]byte(`{"v":1}`)) },
	} {
		if err := call(); !errors.Is(err, ErrBroken) || !errors.Is(err, errno) {
			t.Fatalf("after the fault: %v, want ErrBroken wrapping %v", err, errno)
		}
	}
	if f.Calls(vfs.OpSync) != syncs {
		t.Fatal("a broken writer synced again")
	}
	if err := w.Close(); err != nil {
		t.Fatalf("Close of a broken writer: %v", err)
	}

	got, st := readAll(t, f, "j.jsonl")
	if len(st.Bad) != 0 || st.Torn != 0 {
		t.Fatalf("after the fault: %+v", st)
	}
	want := []string{marshal(t, ok)}
	if op == vfs.OpSync { // the write went through; only its sync failed
		want = append(want, marshal(t, newItem(1, "fails")))
	}
	equalLines(t, got, want)

	w, rep, err := OpenWriter(f, "j.jsonl", Options{Sync: pol, Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Cut != 0 {
		t.Fatalf("Cut %d", rep.Cut)
	}
	next := newItem(3, "new writer")
	if err := w.Append(next); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, _ = readAll(t, f, "j.jsonl")
	equalLines(t, got, append(want, marshal(t, next)))
}

// TestFaultsOpen: a failing create, folder sync, truncate or repair write
// makes OpenWriter fail; it works once the fault is gone.
func TestFaultsOpen(t *testing.T) {
	_, data := journalOf(t)
	torn := append(append([]byte(nil), data...), `{"v":1,"te`...)
	for _, r := range []vfs.Rule{
		{Op: vfs.OpCreate},
		{Op: vfs.OpSync, Path: "."},
		{Op: vfs.OpTruncate},
		{Op: vfs.OpSync, Path: "j.jsonl"},
		{Op: vfs.OpWrite, Path: "j.jsonl"},
		{Op: vfs.OpRead, Path: "j.jsonl"},
	} {
		t.Run(r.Op.String()+" "+r.Path, func(t *testing.T) {
			m := vfs.NewMem()
			f := vfs.NewFaulty(m)
			if r.Op != vfs.OpCreate && r.Path != "." {
				putFile(t, m, "j.jsonl", torn)
			}
			f.Inject(r)
			if _, _, err := OpenWriter(f, "j.jsonl", Options{Now: fixedNow}); err == nil {
				t.Fatal("OpenWriter returned nil under a fault")
			}
			f.Reset()
			w, _, err := OpenWriter(f, "j.jsonl", Options{Now: fixedNow})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Append(newItem(9, "ok")); err != nil {
				t.Fatal(err)
			}
			w.Close()
			got, st := readAll(t, f, "j.jsonl")
			if st.Torn != 0 || len(st.Bad) != 0 || got[len(got)-1] != marshal(t, newItem(9, "ok")) {
				t.Fatalf("after the fault: %q %+v", got, st)
			}
		})
	}
}

// halfFS makes every write to a file write half its bytes, then fail: a
// failed write that left part of a line.
type halfFS struct{ vfs.FS }

func (h halfFS) OpenFile(name string, flag int, perm fs.FileMode) (vfs.File, error) {
	f, err := h.FS.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return halfFile{f}, nil
}

type halfFile struct{ vfs.File }

func (f halfFile) Write(p []byte) (int, error) {
	n, _ := f.File.Write(p[:len(p)/2])
	return n, syscall.EIO
}

// TestPartialWrite: a write that failed after part of the line leaves a torn
// tail; readers ignore it and the next OpenWriter cuts it.
func TestPartialWrite(t *testing.T) {
	m := vfs.NewMem()
	w, _, err := OpenWriter(m, "j.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	ok := newItem(0, "whole")
	if err := w.Append(ok); err != nil {
		t.Fatal(err)
	}
	w.Close()

	w, _, err = OpenWriter(halfFS{m}, "j.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	half := newItem(1, "half of me")
	if err := w.Append(half); !errors.Is(err, syscall.EIO) {
		t.Fatalf("Append: %v", err)
	}
	if err := w.Append(half); !errors.Is(err, ErrBroken) {
		t.Fatalf("Append after: %v", err)
	}
	w.Close()
	cut := int64(len(marshal(t, half))+1) / 2
	got, st := readAll(t, m, "j.jsonl")
	equalLines(t, got, []string{marshal(t, ok)})
	if st.Torn != cut {
		t.Fatalf("Torn %d, want %d", st.Torn, cut)
	}
	w, rep, err := OpenWriter(m, "j.jsonl", Options{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Cut != cut {
		t.Fatalf("Cut %d, want %d", rep.Cut, cut)
	}
	w.Close()
	got, _ = readAll(t, m, "j.jsonl")
	equalLines(t, got, []string{marshal(t, ok), repairText(cut)})
}
