package tools

import (
	"io/fs"
	"testing"

	"cairn/internal/vfs"
)

// umaskCounter is a Mem that counts the times its umask is read.
type umaskCounter struct {
	*vfs.Mem
	n int
}

func (u *umaskCounter) Umask() fs.FileMode {
	u.n++
	return u.Mem.Umask()
}

// TestStageReadsUmaskOnlyForNewFile: staging the new content of a file
// that exists takes its bits from the file, without reading the umask (a
// read of /proc/self/status on the disk), whether or not the plan looked
// at the file first; a new file reads it once.
func TestStageReadsUmaskOnlyForNewFile(t *testing.T) {
	u := &umaskCounter{Mem: vfs.NewMem()}
	if err := vfs.WriteFileAtomic(u, "a.txt", []byte("one")); err != nil {
		t.Fatal(err)
	}
	if err := u.Chmod("a.txt", 0o640); err != nil {
		t.Fatal(err)
	}
	fi, err := u.Lstat("a.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what string
		rel  string
		cur  fs.FileInfo
		want int
	}{
		{"an edit (the plan did not look)", "a.txt", nil, 0},
		{"a write over the file", "a.txt", fi, 0},
		{"a new file", "b.txt", nil, 1},
	} {
		u.n = 0
		j := Start(u, c.rel, &Edit{Content: []byte("two"), Cur: c.cur})
		st, err := j.Wait()
		if err != nil {
			t.Fatal(err)
		}
		st.Discard(u)
		if u.n != c.want {
			t.Errorf("%s: the umask was read %d times, want %d", c.what, u.n, c.want)
		}
		if c.rel == "a.txt" && j.After.Perm != "0640" {
			t.Errorf("%s: perm %s, want the file's 0640", c.what, j.After.Perm)
		}
	}
}
