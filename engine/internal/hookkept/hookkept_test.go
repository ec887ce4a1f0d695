package hookkept

import (
	"errors"
	"io/fs"
	"slices"
	"testing"

	"cairn/internal/vfs"
)

// A note is kept per settings file, sorted and without repeats; the last
// one taken out removes the file; a note that cannot be read is empty.
func TestNote(t *testing.T) {
	d, err := vfs.OpenDisk(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := Set(d, "/a/settings.json", []string{"hooks.Stop", "hooks", "hooks"}); err != nil {
		t.Fatal(err)
	}
	if err := Set(d, "/b/hooks.json", []string{"hooks"}); err != nil {
		t.Fatal(err)
	}
	if got := Get(d, "/a/settings.json"); !slices.Equal(got, []string{"hooks", "hooks.Stop"}) {
		t.Fatalf("a: %q", got)
	}
	if got := Get(d, "/c/none.json"); got != nil {
		t.Fatalf("c: %q", got)
	}
	Set(d, "/a/settings.json", nil)
	if got := Get(d, "/b/hooks.json"); !slices.Equal(got, []string{"hooks"}) {
		t.Fatalf("b after a went: %q", got)
	}
	Set(d, "/b/hooks.json", nil)
	if _, err := d.Stat(File); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the note is left with no file in it: %v", err)
	}
	vfs.WriteFileAtomic(d, File, []byte("{not json"))
	if got := Get(d, "/a/settings.json"); got != nil {
		t.Fatalf("from a note that cannot be read: %q", got)
	}
}
