package objects

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path"
	"slices"
	"sync"
	"testing"

	"cairn/internal/vfs"
)

func TestRoundTrip(t *testing.T) {
	cases := []struct {
		name       string
		content    []byte
		compressed bool
	}{
		{"empty", nil, false},
		{"one byte", []byte("x"), false},
		{"small text", textish(1, 1000), true},
		{"small random", random(1, 100), false},
		{"text 64KiB", textish(2, 64<<10), true},
		{"random 64KiB", random(2, 64<<10), false},
		{"text chunk", textish(3, chunk), true},
		{"random chunk", random(3, chunk), false},
		{"text chunk+1", textish(4, chunk+1), true},
		{"text 3MiB", textish(5, 3<<20), true},
		{"random 3MiB", random(5, 3<<20), false},
	}
	fsKinds(t, func(t *testing.T, fsys vfs.FS) {
		for _, how := range []string{"Put", "PutBytes", "Put reader only"} {
			s := New(fsys, "ws/"+how+"/objects")
			for _, c := range cases {
				var info Info
				var err error
				switch how {
				case "Put":
					info, err = s.Put(ctx, bytes.NewReader(c.content))
				case "PutBytes":
					info, err = s.PutBytes(ctx, c.content)
				default:
					info, err = s.Put(ctx, onlyReader{bytes.NewReader(c.content)})
				}
				if err != nil {
					t.Fatalf("%s %s: %v", how, c.name, err)
				}
				want := Info{ID: Sum(c.content), Size: int64(len(c.content)), Compressed: c.compressed, Stored: info.Stored}
				if info != want {
					t.Errorf("%s %s: info %+v, want %+v", how, c.name, info, want)
				}
				name := s.Path(info.ID, info.Compressed)
				fi, err := fsys.Stat(name)
				if err != nil {
					t.Fatalf("%s %s: %v", how, c.name, err)
				}
				if fi.Size() != info.Stored {
					t.Errorf("%s %s: file has %d bytes, Info.Stored %d", how, c.name, fi.Size(), info.Stored)
				}
				if !c.compressed && info.Stored != info.Size {
					t.Errorf("%s %s: raw object stored in %d bytes, content %d", how, c.name, info.Stored, info.Size)
				}
				if got := mustGet(t, s, info.ID); !bytes.Equal(got, c.content) {
					t.Errorf("%s %s: Get returned %d bytes that differ", how, c.name, len(got))
				}
				got, err := s.ReadAll(ctx, info.ID, info.Size)
				if err != nil || !bytes.Equal(got, c.content) {
					t.Errorf("%s %s: ReadAll: %v", how, c.name, err)
				}
				st, err := s.Stat(info.ID)
				if err != nil || st != want {
					t.Errorf("%s %s: Stat %+v %v, want %+v", how, c.name, st, err, want)
				}
				if ok, err := s.Has(info.ID); !ok || err != nil {
					t.Errorf("%s %s: Has %v %v", how, c.name, ok, err)
				}
				if err := s.Verify(ctx, info.ID); err != nil {
					t.Errorf("%s %s: Verify: %v", how, c.name, err)
				}
				checkFileHashesToName(t, fsys, name)
			}
			if tmp := tempFiles(t, fsys, s.Dir()); len(tmp) > 0 {
				t.Errorf("%s: temp files left: %v", how, tmp)
			}
			if _, ok := fsys.(*vfs.Disk); ok {
				for _, p := range storedFiles(t, fsys, s.Dir()) {
					if m := fileMode(t, fsys, p); m != vfs.FilePerm {
						t.Errorf("%s: mode %v", p, m)
					}
					if m := fileMode(t, fsys, path.Dir(p)); m != vfs.DirPerm {
						t.Errorf("%s: mode %v", path.Dir(p), m)
					}
				}
				for _, d := range []string{"ws", "ws/" + how, s.Dir()} {
					if m := fileMode(t, fsys, d); m != vfs.DirPerm {
						t.Errorf("%s: mode %v", d, m)
					}
				}
			}
		}
	})
}

func TestMissing(t *testing.T) {
	fsKinds(t, func(t *testing.T, fsys vfs.FS) {
		s := New(fsys, "objects")
		id := Sum([]byte("never stored"))
		if ok, err := s.Has(id); ok || err != nil {
			t.Errorf("Has: %v %v", ok, err)
		}
		if _, err := s.Get(ctx, id); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get: %v", err)
		}
		if _, err := s.Stat(id); !errors.Is(err, ErrNotFound) {
			t.Errorf("Stat: %v", err)
		}
		if _, err := s.ReadAll(ctx, id, 1<<20); !errors.Is(err, ErrNotFound) {
			t.Errorf("ReadAll: %v", err)
		}
		if err := s.Verify(ctx, id); !errors.Is(err, ErrNotFound) {
			t.Errorf("Verify: %v", err)
		}
		if err := s.Remove(id); !errors.Is(err, ErrNotFound) {
			t.Errorf("Remove: %v", err)
		}
		n := 0
		if err := s.Walk(ctx, func(Info) error { n++; return nil }); err != nil || n != 0 {
			t.Errorf("Walk of a store never written: %d objects, %v", n, err)
		}
	})
}

// TestOneEighthRule checks both sides of the rule: a content is stored
// compressed exactly when its zstd frame is at most 7/8 of it (up to a chunk,
// where the store decides exactly), and a .zst object always saves an eighth
// (beyond a chunk, where it estimates).
func TestOneEighthRule(t *testing.T) {
	s := New(vfs.NewMem(), "objects")
	// Contents from all random to all text: the frame's share of the
	// content sweeps through 7/8.
	sides := map[bool]int{}
	for i := 0; i <= 64; i++ {
		n := 4096
		b := random(uint64(i), n)
		copy(b[n*(64-i)/64:], bytes.Repeat([]byte{'a'}, n))
		frame := allEncoder().EncodeAll(b, nil)
		want := int64(len(frame))*8 <= int64(n)*7
		info, err := s.PutBytes(ctx, b)
		if err != nil {
			t.Fatal(err)
		}
		if info.Compressed != want {
			t.Errorf("%d/64 text: frame %d of %d bytes: compressed %v, want %v", i, len(frame), n, info.Compressed, want)
		}
		sides[want]++
	}
	if sides[true] == 0 || sides[false] == 0 {
		t.Fatalf("the sweep missed a side of the rule: %v", sides)
	}

	// Over a chunk: the first chunk compresses, the rest does not, and the
	// whole misses the rule: it must end up raw.
	b := append(bytes.Repeat([]byte("abcd"), chunk/4+1), random(9, 16<<20)...)
	info, err := s.Put(ctx, onlyReader{bytes.NewReader(b)})
	if err != nil {
		t.Fatal(err)
	}
	if info.Compressed || info.Stored != int64(len(b)) {
		t.Errorf("mostly random content: %+v, want raw", info)
	}
	if got := mustGet(t, s, info.ID); !bytes.Equal(got, b) {
		t.Error("converted object reads back different")
	}
	// The first chunk compresses and the whole just makes the rule.
	b = append(textish(3, 2*chunk), random(10, chunk/4)...)
	info, err = s.Put(ctx, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if !info.Compressed || !Compressible(info.Size, info.Stored) {
		t.Errorf("mostly text content: %+v, want compressed saving an eighth", info)
	}
	if got := mustGet(t, s, info.ID); !bytes.Equal(got, b) {
		t.Error("compressed object reads back different")
	}
	if !Compressible(8, 7) || Compressible(8, 8) || !Compressible(0, 0) || Compressible(0, 1) {
		t.Error("Compressible is not compressed*8 <= raw*7")
	}
}

func TestExistingNotRewritten(t *testing.T) {
	fsKinds(t, func(t *testing.T, fsys vfs.FS) {
		s := New(fsys, "objects")
		for _, b := range [][]byte{textish(1, 1000), random(1, 1000), textish(2, 3<<20), random(2, 3<<20)} {
			first, err := s.PutBytes(ctx, b)
			if err != nil || first.Existed {
				t.Fatalf("first Put: %+v %v", first, err)
			}
			name := s.Path(first.ID, first.Compressed)
			// Replace the stored file's bytes behind the store's back: a
			// rewrite would put the real content back.
			marker := []byte("not rewritten")
			f, err := fsys.OpenFile(name, os.O_WRONLY|os.O_TRUNC, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.Write(marker)
			f.Close()
			before, err := fsys.Stat(name)
			if err != nil {
				t.Fatal(err)
			}
			for _, put := range []func() (Info, error){
				func() (Info, error) { return s.PutBytes(ctx, b) },
				func() (Info, error) { return s.Put(ctx, onlyReader{bytes.NewReader(b)}) },
			} {
				again, err := put()
				if err != nil {
					t.Fatal(err)
				}
				want := Info{ID: first.ID, Size: int64(len(b)), Stored: int64(len(marker)), Compressed: first.Compressed, Existed: true}
				if again != want {
					t.Errorf("second Put: %+v, want %+v", again, want)
				}
			}
			after, err := fsys.Stat(name)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := vfs.ReadFile(fsys, name)
			if !bytes.Equal(got, marker) {
				t.Errorf("existing object rewritten: %q", got)
			}
			// Found again, it is touched: used now, for a prune.
			if !after.ModTime().After(before.ModTime()) {
				t.Errorf("existing object not touched: mtime %v -> %v", before.ModTime(), after.ModTime())
			}
			if tmp := tempFiles(t, fsys, s.Dir()); len(tmp) > 0 {
				t.Errorf("temp files left: %v", tmp)
			}
		}
	})
}

func TestConcurrentPut(t *testing.T) {
	fsKinds(t, func(t *testing.T, fsys vfs.FS) {
		for _, b := range [][]byte{textish(7, 5000), random(7, 5000), textish(8, 2<<20+3), random(8, 2<<20+3)} {
			s := New(fsys, "objects")
			var wg sync.WaitGroup
			infos := make([]Info, 8)
			errs := make([]error, 8)
			for i := range 8 {
				wg.Go(func() {
					// Each writer its own Store, like separate processes.
					infos[i], errs[i] = New(fsys, "objects").Put(ctx, bytes.NewReader(b))
				})
			}
			wg.Wait()
			for i := range 8 {
				if errs[i] != nil || infos[i].ID != Sum(b) {
					t.Fatalf("writer %d: %+v %v", i, infos[i], errs[i])
				}
			}
			if err := s.Verify(ctx, Sum(b)); err != nil {
				t.Fatal(err)
			}
			n := 0
			s.Walk(ctx, func(info Info) error {
				if info.ID == Sum(b) {
					n++
				}
				return nil
			})
			if n != 1 {
				t.Errorf("%d files for one object", n)
			}
			if tmp := tempFiles(t, fsys, s.Dir()); len(tmp) > 0 {
				t.Errorf("temp files left: %v", tmp)
			}
		}
	})
}

// readToEnd reads r until an error and returns what it read and the error.
func readToEnd(r io.Reader) ([]byte, error) {
	var out []byte
	buf := make([]byte, 777)
	for {
		n, err := r.Read(buf)
		out = append(out, buf[:n]...)
		if err != nil {
			return out, err
		}
	}
}

// TestCorrupt flips each byte of stored objects, raw and compressed, in turn:
// a reader that reaches io.EOF must have returned exactly the content;
// otherwise Get's reader, ReadAll and Verify report ErrMismatch.
func TestCorrupt(t *testing.T) {
	fsys := vfs.NewMem()
	s := New(fsys, "objects")
	for _, b := range [][]byte{random(3, 300), textish(3, 3000), textish(4, 3<<20)} {
		info, err := s.PutBytes(ctx, b)
		if err != nil {
			t.Fatal(err)
		}
		name := s.Path(info.ID, info.Compressed)
		orig, err := vfs.ReadFile(fsys, name)
		if err != nil {
			t.Fatal(err)
		}
		step := max(1, len(orig)/40) // every byte of small ones
		if len(orig) < 5000 {
			step = 1
		}
		mismatches, flips := 0, 0
		for i := 0; i < len(orig); i += step {
			bad := bytes.Clone(orig)
			bad[i] ^= 0x20
			if err := vfs.WriteFileAtomic(fsys, name, bad); err != nil {
				t.Fatal(err)
			}
			rc, err := s.Get(ctx, info.ID)
			if err == nil {
				var got []byte
				got, err = readToEnd(rc)
				rc.Close()
				if err == io.EOF {
					if !bytes.Equal(got, b) {
						t.Fatalf("byte %d flipped: clean EOF after wrong content", i)
					}
					err = nil
				}
			}
			if err != nil && !errors.Is(err, ErrMismatch) {
				t.Fatalf("byte %d flipped: Get: %v, want ErrMismatch", i, err)
			}
			verr := s.Verify(ctx, info.ID)
			if (verr == nil) != (err == nil) || verr != nil && !errors.Is(verr, ErrMismatch) {
				t.Fatalf("byte %d flipped: Verify %v, Get %v", i, verr, err)
			}
			if _, rerr := s.ReadAll(ctx, info.ID, 1<<30); (rerr == nil) != (err == nil) ||
				rerr != nil && !errors.Is(rerr, ErrMismatch) && !errors.Is(rerr, ErrTooLarge) {
				t.Fatalf("byte %d flipped: ReadAll %v, Get %v", i, rerr, err)
			}
			flips++
			if err != nil {
				mismatches++
			}
		}
		if !info.Compressed && mismatches != flips || mismatches == 0 {
			t.Errorf("%s: %d flips of %d caught", name, mismatches, flips)
		}
		// Truncated, and grown.
		for _, bad := range [][]byte{orig[:len(orig)/2], append(bytes.Clone(orig), 'x')} {
			vfs.WriteFileAtomic(fsys, name, bad)
			if err := s.Verify(ctx, info.ID); !errors.Is(err, ErrMismatch) {
				t.Errorf("%s of %d bytes stored as %d: Verify %v", name, len(orig), len(bad), err)
			}
		}
		vfs.WriteFileAtomic(fsys, name, orig)
		if err := s.Verify(ctx, info.ID); err != nil {
			t.Fatal(err)
		}
	}
}

func TestReadAllTooLarge(t *testing.T) {
	s := New(vfs.NewMem(), "objects")
	for _, b := range [][]byte{random(1, 100), textish(1, 100), textish(2, 3<<20)} {
		info, err := s.Put(ctx, onlyReader{bytes.NewReader(b)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.ReadAll(ctx, info.ID, int64(len(b)-1)); !errors.Is(err, ErrTooLarge) {
			t.Errorf("ReadAll with max one short: %v", err)
		}
		if got, err := s.ReadAll(ctx, info.ID, int64(len(b))); err != nil || !bytes.Equal(got, b) {
			t.Errorf("ReadAll with max the size: %v", err)
		}
	}
}

func TestCancelled(t *testing.T) {
	s := New(vfs.NewMem(), "objects")
	c, cancel := context.WithCancel(ctx)
	cancel()
	b := textish(1, 100)
	if _, err := s.PutBytes(c, b); !errors.Is(err, context.Canceled) {
		t.Errorf("PutBytes: %v", err)
	}
	if _, err := s.Put(c, bytes.NewReader(textish(1, 3<<20))); !errors.Is(err, context.Canceled) {
		t.Errorf("Put: %v", err)
	}
	if ok, _ := s.Has(Sum(b)); ok {
		t.Error("a cancelled Put stored its object")
	}
	info, err := s.PutBytes(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(c, info.ID); !errors.Is(err, context.Canceled) {
		t.Errorf("Get: %v", err)
	}
}

func TestRemove(t *testing.T) {
	fsKinds(t, func(t *testing.T, fsys vfs.FS) {
		s := New(fsys, "objects")
		keep, _ := s.PutBytes(ctx, textish(1, 500))
		gone, _ := s.PutBytes(ctx, random(1, 500))
		gone2, _ := s.PutBytes(ctx, textish(2, 500))
		for _, id := range []ID{gone.ID, gone2.ID} {
			if err := s.Remove(id); err != nil {
				t.Fatal(err)
			}
			if ok, err := s.Has(id); ok || err != nil {
				t.Errorf("Has after Remove: %v %v", ok, err)
			}
			if _, err := s.Get(ctx, id); !errors.Is(err, ErrNotFound) {
				t.Errorf("Get after Remove: %v", err)
			}
			if err := s.Remove(id); !errors.Is(err, ErrNotFound) {
				t.Errorf("second Remove: %v", err)
			}
		}
		if err := s.Verify(ctx, keep.ID); err != nil {
			t.Errorf("Remove took another object: %v", err)
		}
		// Removed content can be stored again.
		if info, err := s.PutBytes(ctx, random(1, 500)); err != nil || info.Existed {
			t.Errorf("Put after Remove: %+v %v", info, err)
		}
	})
}

func TestWalk(t *testing.T) {
	fsKinds(t, func(t *testing.T, fsys vfs.FS) {
		s := New(fsys, "objects")
		want := map[ID]Info{}
		for i := range 40 {
			b := textish(uint64(i), 100+i*50)
			if i%2 == 1 {
				b = random(uint64(i), 100+i)
			}
			if i == 39 {
				b = textish(99, 3<<20) // compressed without a size in the frame
			}
			info, err := s.Put(ctx, onlyReader{bytes.NewReader(b)})
			if err != nil {
				t.Fatal(err)
			}
			want[info.ID] = info
		}
		// Junk: a stray file, a bad shard, a bad name in a shard, a
		// folder where an object should be; and temp files, which are not
		// problems.
		some := s.Path(slices.Collect(func(yield func(ID) bool) {
			for id := range want {
				yield(id)
				return
			}
		})[0], false)
		shard := path.Dir(some)
		fsys.MkdirAll("objects/zz", vfs.DirPerm)
		junk := []string{"objects/README", "objects/zz", shard + "/abc", shard + "/" + path.Base(some)[:61] + "X"}
		vfs.WriteFileAtomic(fsys, "objects/zz/"+path.Base(some), []byte("junk"))
		for _, j := range junk {
			if j == "objects/zz" {
				continue
			}
			fsys.MkdirAll(path.Dir(j), vfs.DirPerm)
			if err := vfs.WriteFileAtomic(fsys, j, []byte("junk")); err != nil {
				t.Fatal(err)
			}
		}
		fsys.MkdirAll(shard+"/0123456789012345678901234567890123456789012345678901234567890a", vfs.DirPerm)
		junk = append(junk, shard+"/0123456789012345678901234567890123456789012345678901234567890a")
		for _, tmp := range []string{"objects/.put.tmp123", shard + "/.put.tmp456"} {
			vfs.WriteFileAtomic(fsys, tmp, []byte("half"))
		}

		got := map[ID]Info{}
		var last string
		err := s.Walk(ctx, func(info Info) error {
			if info.ID.String() < last {
				t.Errorf("Walk out of order: %s after %s", info.ID, last)
			}
			last = info.ID.String()
			got[info.ID] = info
			return nil
		})
		for id, w := range want {
			if g := got[id]; g != w {
				t.Errorf("Walk: %+v, want %+v", g, w)
			}
		}
		if len(got) != len(want) {
			t.Errorf("Walk visited %d objects, want %d", len(got), len(want))
		}
		var paths []string
		for _, p := range Problems(err) {
			paths = append(paths, p.Path)
			if !errors.Is(p, errNotObject) {
				t.Errorf("problem %v", p)
			}
		}
		slices.Sort(paths)
		slices.Sort(junk)
		if !slices.Equal(paths, junk) {
			t.Errorf("problems %v, want %v", paths, junk)
		}

		// An error from fn stops Walk and comes back as it is.
		stop := errors.New("stop")
		n := 0
		if err := s.Walk(ctx, func(Info) error { n++; return stop }); err != stop || n != 1 {
			t.Errorf("Walk with a failing fn: %v after %d", err, n)
		}
	})
}

// TestEveryFileHashesToItsName stores a mix and checks each file on disk
// with a decoder that is not the store's.
func TestEveryFileHashesToItsName(t *testing.T) {
	d, err := vfs.OpenDisk(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	s := New(d, "objects")
	for i := range 30 {
		b := textish(uint64(i), i*i*1500)
		if i%3 == 0 {
			b = random(uint64(i), i*i*1000)
		}
		if _, err := s.Put(ctx, onlyReader{bytes.NewReader(b)}); err != nil {
			t.Fatal(err)
		}
	}
	files := storedFiles(t, d, "objects")
	zst := 0
	for _, f := range files {
		checkFileHashesToName(t, d, f)
		if path.Ext(f) == ".zst" {
			zst++
		}
	}
	if len(files) != 30 || zst == 0 || zst == 30 {
		t.Errorf("%d files, %d compressed", len(files), zst)
	}
}

// TestStoreFolderRemovedIsMadeAgain: a Store kept for long (one per
// workspace) whose folder is removed behind its back makes it again on the
// next Put, durably.
func TestStoreFolderRemovedIsMadeAgain(t *testing.T) {
	m := vfs.NewMem()
	s := New(m, "w/objects")
	a, b := textish(21, 3000), random(22, chunk+10)
	if _, err := s.PutBytes(ctx, a); err != nil {
		t.Fatal(err)
	}
	for _, p := range storedFiles(t, m, "w/objects") {
		if err := m.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Remove(s.shardDir(Sum(a))); err != nil {
		t.Fatal(err)
	}
	if err := m.Remove("w/objects"); err != nil {
		t.Fatal(err)
	}
	m.SyncDir("w")
	for _, c := range [][]byte{a, b} {
		if info, err := s.Put(ctx, bytes.NewReader(c)); err != nil || info.Existed {
			t.Fatalf("Put after the folder went: %+v %v", info, err)
		}
	}
	m.Crash()
	for _, c := range [][]byte{a, b} {
		if err := New(m, "w/objects").Verify(ctx, Sum(c)); err != nil {
			t.Fatal(err)
		}
	}
}

// TestReadAllPrefersAGoodRawCopy: where a damaged compressed copy of an
// object lies beside a good raw one, ReadAll reads the raw one, as Get
// does, instead of failing on the compressed one.
func TestReadAllPrefersAGoodRawCopy(t *testing.T) {
	fsys := vfs.NewMem()
	s := New(fsys, "objects")
	b := textish(5, 3000)
	info, err := s.PutBytes(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	if !info.Compressed {
		t.Fatal("the content was meant to be stored compressed")
	}
	z, err := vfs.ReadFile(fsys, s.Path(info.ID, true))
	if err != nil {
		t.Fatal(err)
	}
	z[len(z)/2] ^= 0x20
	for name, content := range map[string][]byte{s.Path(info.ID, true): z, s.Path(info.ID, false): b} {
		if err := vfs.WriteFileAtomic(fsys, name, content); err != nil {
			t.Fatal(err)
		}
	}

	rc, err := s.Get(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	viaGet, err := io.ReadAll(rc)
	rc.Close()
	if err != nil || !bytes.Equal(viaGet, b) {
		t.Fatalf("Get: %v", err)
	}
	got, err := s.ReadAll(ctx, info.ID, 1<<20)
	if err != nil || !bytes.Equal(got, b) {
		t.Fatalf("ReadAll beside a good raw copy: %v", err)
	}
}
