package objects

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"math/rand/v2"
	"path"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"cairn/internal/vfs"
)

var ctx = context.Background()

// words make text-ish content that compresses about 3 to 1.
var words = strings.Fields(`the session record item head change object journal workspace
snapshot undo redo revert fork trail owner policy tier func return error if err != nil
package import struct type interface string byte int64 context ctx := for range go defer`)

func textish(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	var b bytes.Buffer
	for b.Len() < n {
		b.WriteString(words[r.IntN(len(words))])
		if r.IntN(12) == 0 {
			b.WriteString(strings.Repeat("\t", r.IntN(3)))
			b.WriteByte('\n')
		} else {
			b.WriteByte(' ')
		}
		if r.IntN(50) == 0 {
			b.WriteString(string(rune('A' + r.IntN(26))))
		}
	}
	return b.Bytes()[:n]
}

func random(seed uint64, n int) []byte {
	r := rand.NewChaCha8([32]byte{byte(seed), byte(seed >> 8), byte(seed >> 16), 1})
	b := make([]byte, n)
	r.Read(b)
	return b
}

// fsKinds runs a test on the real disk and on the in-memory filesystem.
func fsKinds(t *testing.T, fn func(t *testing.T, fsys vfs.FS)) {
	t.Run("disk", func(t *testing.T) {
		d, err := vfs.OpenDisk(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		fn(t, d)
	})
	t.Run("mem", func(t *testing.T) { fn(t, vfs.NewMem()) })
}

// onlyReader hides every method of r but Read (so Put cannot learn the size).
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

// mustGet reads object id through Get, failing the test on any error.
func mustGet(t *testing.T, s *Store, id ID) []byte {
	t.Helper()
	rc, err := s.Get(ctx, id)
	if err != nil {
		t.Fatalf("Get %s: %v", id, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatalf("Get %s: read: %v", id, err)
	}
	return b
}

// storedFiles lists every regular file under the store folder, temp files
// included, relative to the FS.
func storedFiles(t *testing.T, fsys vfs.FS, dir string) []string {
	t.Helper()
	var out []string
	var walk func(string)
	walk = func(d string) {
		ents, err := fsys.ReadDir(d)
		if vfs.IsNotExist(err) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			p := path.Join(d, e.Name())
			if e.IsDir() {
				walk(p)
			} else {
				out = append(out, p)
			}
		}
	}
	walk(dir)
	return out
}

// tempFiles lists the temp files in the store (its folder and shards).
func tempFiles(t *testing.T, fsys vfs.FS, dir string) []string {
	var out []string
	for _, p := range storedFiles(t, fsys, dir) {
		if vfs.IsTemp(path.Base(p)) {
			out = append(out, p)
		}
	}
	return out
}

// checkFileHashesToName decodes a stored file independently of the store's
// code (a fresh decoder) and checks it hashes to its name.
func checkFileHashesToName(t *testing.T, fsys vfs.FS, name string) {
	t.Helper()
	b, err := vfs.ReadFile(fsys, name)
	if err != nil {
		t.Fatal(err)
	}
	hexName := path.Base(path.Dir(name)) + strings.TrimSuffix(path.Base(name), ".zst")
	if strings.HasSuffix(name, ".zst") {
		d, err := zstd.NewReader(nil)
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		if b, err = d.DecodeAll(b, nil); err != nil {
			t.Fatalf("%s: not a zstd frame: %v", name, err)
		}
	}
	if got := Sum(b).String(); got != hexName {
		t.Fatalf("%s hashes to %s", name, got)
	}
}

func fileMode(t *testing.T, fsys vfs.FS, name string) fs.FileMode {
	t.Helper()
	fi, err := fsys.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}
