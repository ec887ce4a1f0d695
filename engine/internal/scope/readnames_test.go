package scope

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestReadNames: readNames, which reads the system's dirent records itself
// (readnames_linux.go) or through unix.ParseDirent, lists exactly the
// names os.ReadDir does, each after the prefix, "." and ".." left out,
// for a folder whose entries take several reads of the walk's buffer,
// each followed in memory by a NUL byte.
func TestReadNames(t *testing.T) {
	dir := t.TempDir()
	var want []string
	for i := range 1500 {
		name := fmt.Sprintf("%04d-%s", i, strings.Repeat("n", i%200))
		if i%7 == 0 {
			name += ".d"
			if err := os.Mkdir(dir+"/"+name, 0o755); err != nil {
				t.Fatal(err)
			}
		} else {
			writeFile(t, dir, name, "")
		}
		want = append(want, "sub/"+name)
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	w := walker{rd: System{}}
	got, err := w.readNames(fd, "sub/", nil)
	if err != nil {
		t.Fatal(err)
	}
	// fstatat0 gives each name to the system in place: a NUL follows it.
	for _, p := range got {
		if *(*byte)(unsafe.Add(unsafe.Pointer(unsafe.StringData(p)), len(p))) != 0 {
			t.Fatalf("no NUL after %q", p)
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("readNames listed %d names, want %d (first %q)", len(got), len(want), got[:min(3, len(got))])
	}
}
