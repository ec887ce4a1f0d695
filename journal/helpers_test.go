package journal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"cairn/internal/vfs"
)

// fixedNow is the clock of repair lines in tests.
func fixedNow() time.Time { return time.Date(2026, 11, 29, 9, 12, 3, 120e6, time.UTC) }

// repairText is the repair line a Writer on fixedNow appends for a cut of n.
func repairText(n int64) string {
	return fmt.Sprintf(`{"v":1,"kind":"repair","at":"2026-11-29T09:12:03.120Z","cut":%d}`, n)
}

// filesystems runs test on the real disk and on Mem: one suite, two FSes.
func filesystems(t *testing.T, test func(t *testing.T, fsys vfs.FS)) {
	t.Run("disk", func(t *testing.T) {
		d, err := vfs.OpenDisk(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		test(t, d)
	})
	t.Run("mem", func(t *testing.T) { test(t, vfs.NewMem()) })
}

// item is a journal line as the engine writes it.
type item struct {
	V      int     `json:"v"`
	Kind   string  `json:"kind"`
	ID     string  `json:"id"`
	Parent *string `json:"parent"`
	Type   string  `json:"type"`
	Text   string  `json:"text"`
}

func newItem(i int, text string) item {
	var parent *string
	if i > 0 {
		p := fmt.Sprintf("i-%d", i-1)
		parent = &p
	}
	return item{V: 1, Kind: "item", ID: fmt.Sprintf("i-%d", i), Parent: parent, Type: "user", Text: text}
}

func marshal(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// readAll reads a journal and returns its lines as strings.
func readAll(t testing.TB, fsys vfs.FS, name string) ([]string, Stats) {
	t.Helper()
	var lines []string
	st, err := Read(fsys, name, func(line []byte) error {
		lines = append(lines, string(line))
		return nil
	})
	if err != nil {
		t.Fatalf("Read %s: %v", name, err)
	}
	if st.Lines != len(lines) {
		t.Fatalf("Stats.Lines = %d, fn saw %d", st.Lines, len(lines))
	}
	return lines, st
}

// fileBytes reads a whole file.
func fileBytes(t testing.TB, fsys vfs.FS, name string) []byte {
	t.Helper()
	b, err := vfs.ReadFile(fsys, name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// putFile writes a file whole, durably, bypassing the Writer.
func putFile(t testing.TB, fsys vfs.FS, name string, data []byte) {
	t.Helper()
	f, err := fsys.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, vfs.FilePerm)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := fsys.SyncDir("."); err != nil {
		t.Fatal(err)
	}
	if got := fileBytes(t, fsys, name); !bytes.Equal(got, data) {
		t.Fatalf("putFile: file holds %q", got)
	}
}

func equalLines(t testing.TB, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d lines, want %d:\n got %q\nwant %q", len(got), len(want), got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("line %d:\n got %s\nwant %s", i+1, got[i], want[i])
		}
	}
}
