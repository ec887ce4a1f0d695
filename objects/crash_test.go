package objects

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"syscall"
	"testing"

	"cairn/internal/vfs"
)

// crashContents are the shapes of Put that take different paths: small raw,
// small compressed, large compressed, large raw, and large converted from
// compressed to raw.
func crashContents() map[string][]byte {
	return map[string][]byte{
		"small raw":        random(11, 700),
		"small compressed": textish(11, 7000),
		"large compressed": textish(12, chunk+100<<10),
		"large raw":        random(12, chunk+100<<10),
		// The first chunk just compresses (a fifth zeros), the whole does
		// not: Put converts it to raw.
		"large converted": append(append(random(13, chunk*4/5), make([]byte, chunk/5+1)...), random(14, chunk)...),
	}
}

// checkAfterCrash checks that object id is either absent or whole and valid,
// and that nothing under an object name fails verification.
func checkAfterCrash(t *testing.T, fsys vfs.FS, dir string, id ID, content []byte) (present bool) {
	t.Helper()
	s := New(fsys, dir)
	err := s.Walk(ctx, func(info Info) error {
		if err := s.Verify(ctx, info.ID); err != nil {
			t.Errorf("after crash: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Errorf("after crash: Walk: %v", err)
	}
	ok, err := s.Has(id)
	if err != nil {
		t.Fatal(err)
	}
	if ok {
		if got := mustGet(t, s, id); !bytes.Equal(got, content) {
			t.Errorf("after crash: object reads back different")
		}
	}
	if _, err := vfs.SweepTemps(fsys, dir); err != nil {
		t.Errorf("SweepTemps: %v", err)
	}
	return ok
}

func TestPutSurvivesCrash(t *testing.T) {
	m := vfs.NewMem()
	dir := "workspaces/w/objects" // parents created by Put too
	s := New(m, dir)
	contents := crashContents()
	for _, b := range contents {
		if _, err := s.PutBytes(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	m.Crash()
	s = New(m, dir)
	n := 0
	if err := s.Walk(ctx, func(Info) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	if n != len(contents) {
		t.Errorf("%d objects after the crash, want %d", n, len(contents))
	}
	for name, b := range contents {
		if got, err := s.ReadAll(ctx, Sum(b), 1<<30); err != nil || !bytes.Equal(got, b) {
			t.Errorf("%s after the crash: %v", name, err)
		}
	}
}

// TestCrashAtEverySyncPoint stops a Put at each of its sync points in turn,
// crashes, and checks the object is absent or whole; once a Put returns, it
// must survive.
func TestCrashAtEverySyncPoint(t *testing.T) {
	for name, b := range crashContents() {
		for _, fresh := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s fresh=%v", name, fresh), func(t *testing.T) {
				for n := 0; ; n++ {
					if n > 20 {
						t.Fatal("Put never finished")
					}
					m := vfs.NewMem()
					dir := "w/objects"
					if !fresh {
						// A store where the shard exists already.
						if _, err := New(m, dir).PutBytes(ctx, b[:len(b)-1]); err != nil {
							t.Fatal(err)
						}
						id := Sum(b)
						m.MkdirAll(dir+"/"+id.String()[:2], vfs.DirPerm)
						m.SyncDir(dir)
					}
					m.FailAfterSyncs(n)
					_, err := New(m, dir).PutBytes(ctx, b)
					m.Crash()
					present := checkAfterCrash(t, m, dir, Sum(b), b)
					if err == nil {
						if !present {
							t.Fatalf("Put acknowledged after %d syncs, object lost in the crash", n)
						}
						return
					}
					if !errors.Is(err, vfs.ErrCrashed) {
						t.Fatalf("stopped after %d syncs: %v", n, err)
					}
				}
			})
		}
	}
}

func TestPartialCrash(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	contents := crashContents()
	for round := range 60 {
		m := vfs.NewMem()
		s := New(m, "objects")
		var acked [][]byte
		var failed []byte
		stop := r.IntN(12)
		m.FailAfterSyncs(stop)
		for _, b := range contents {
			if _, err := s.PutBytes(ctx, b); err != nil {
				failed = b
				break
			}
			acked = append(acked, b)
		}
		m.CrashPartial(r)
		for _, b := range acked {
			if !checkAfterCrash(t, m, "objects", Sum(b), b) {
				t.Fatalf("round %d: an acknowledged object is lost", round)
			}
		}
		if failed != nil {
			checkAfterCrash(t, m, "objects", Sum(failed), failed)
		}
	}
}

// TestFaults fails each write, sync, rename, create, mkdir and read of a Put
// in turn, with ENOSPC and EIO: Put returns the error, leaves no temp file
// and no object (but for a failed shard folder sync, which keeps it whole),
// and once the fault is gone writes the object again.
func TestFaults(t *testing.T) {
	contents := crashContents()
	for _, op := range []vfs.Op{vfs.OpWrite, vfs.OpSync, vfs.OpRename, vfs.OpCreate, vfs.OpMkdir, vfs.OpRead} {
		for _, errno := range []error{syscall.ENOSPC, syscall.EIO} {
			if errno == syscall.ENOSPC && (op == vfs.OpSync || op == vfs.OpRead) {
				continue // not how a full disk shows
			}
			for name, b := range contents {
				for _, made := range []bool{false, true} {
					if made && len(b) > chunk && errno == syscall.ENOSPC {
						continue // the same calls as EIO
					}
					faultEachCall(t, op, errno, name, b, made)
				}
			}
		}
	}
}

func faultEachCall(t *testing.T, op vfs.Op, errno error, name string, b []byte, made bool) {
	put := func(s *Store) (Info, error) { return s.PutBytes(ctx, b) }
	faultEachCallOf(t, op, errno, name, Sum(b), made, put)
}

// faultEachCallOf is faultEachCall of put, which stores object id.
func faultEachCallOf(t *testing.T, op vfs.Op, errno error, name string, id ID, made bool, put func(*Store) (Info, error)) {
	for skip := 0; ; skip++ {
		what := fmt.Sprintf("%v %v %s made=%v skip %d", op, errno, name, made, skip)
		f := vfs.NewFaulty(vfs.NewMem())
		s := New(f, "w/objects")
		if made { // the store and some shards exist already
			for i := range 64 {
				if _, err := s.PutBytes(ctx, []byte{byte(i)}); err != nil {
					t.Fatal(err)
				}
			}
		}
		f.Inject(vfs.Rule{Op: op, Skip: skip, Count: 1, Err: errno})
		before := f.Calls(op)
		info, err := put(s)
		fired := f.Calls(op)-before > skip
		f.Reset()
		if !fired {
			if err != nil || info.ID != id || s.Verify(ctx, id) != nil {
				t.Fatalf("%s: without a fault: %+v %v", what, info, err)
			}
			return
		}
		if !errors.Is(err, errno) {
			t.Fatalf("%s: %v, want %v", what, err, errno)
		}
		// Only a failed sync of the shard folder, after the rename, leaves
		// the object in place, whole (another writer may have stored it).
		var pe *fs.PathError
		if errors.As(err, &pe) && op == vfs.OpSync && pe.Path == s.shardDir(id) {
			if verr := s.Verify(ctx, id); verr != nil {
				t.Fatalf("%s: failed folder sync did not keep the object: %v", what, verr)
			}
		} else {
			for _, z := range []bool{false, true} {
				if _, serr := f.Stat(s.Path(id, z)); !vfs.IsNotExist(serr) {
					t.Fatalf("%s: failed Put left %s (%v)", what, s.Path(id, z), serr)
				}
			}
		}
		if tmp := tempFiles(t, f, "w/objects"); len(tmp) > 0 {
			t.Fatalf("%s: temp files left: %v", what, tmp)
		}
		info, err = put(s)
		if err != nil || info.Existed {
			t.Fatalf("%s: Put after the fault: %+v %v", what, info, err)
		}
		if err := s.Verify(ctx, id); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
}

func TestConvertedContentIsConverted(t *testing.T) {
	b := crashContents()["large converted"]
	if !Compressible(chunk, int64(len(allEncoder().EncodeAll(b[:chunk], nil)))) {
		t.Fatal("the first chunk does not compress")
	}
	info, err := New(vfs.NewMem(), "objects").Put(ctx, onlyReader{bytes.NewReader(b)})
	if err != nil || info.Compressed {
		t.Fatalf("%+v %v, want raw", info, err)
	}
}
