package engine

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
	noErr(t, vfs.WriteFileAtomic(u, "a.txt", []byte("one")))
	noErr(t, u.Chmod("a.txt", 0o640))
	fi := must(u.Lstat("a.txt"))(t)
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
		j := startStage(u, c.rel, &toolEdit{content: []byte("two"), cur: c.cur})
		st, err := j.wait()
		noErr(t, err)
		st.Discard(u)
		if u.n != c.want {
			t.Errorf("%s: the umask was read %d times, want %d", c.what, u.n, c.want)
		}
		if c.rel == "a.txt" && j.after.Perm != "0640" {
			t.Errorf("%s: perm %s, want the file's 0640", c.what, j.after.Perm)
		}
	}
}
