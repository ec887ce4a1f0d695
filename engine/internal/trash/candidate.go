package trash

import (
	"bytes"
	"encoding/json"
	"os"
	"time"

	"cairn/engine/internal/layout"
	"cairn/internal/timefmt"
	"cairn/internal/vfs"
)

// What a retention plan reads of a session besides its record.

// ArtifactBytes is what a trim of session id of workspace folder ws would
// drop: its change records, its retained tool outputs and its shell
// history.
func ArtifactBytes(fsys vfs.FS, ws, id string) int64 {
	var n int64
	for _, name := range []string{layout.Changes(ws, id), layout.Shell(ws, id)} {
		if fi, err := fsys.Stat(name); err == nil {
			n += fi.Size()
		}
	}
	for _, folder := range TrimFolders() {
		n += folderBytes(fsys, layout.SessionFolder(ws, folder, id))
	}
	return n
}

// folderBytes is the size of the files in folder dir (not below it).
func folderBytes(fsys vfs.FS, dir string) int64 {
	ents, err := fsys.ReadDir(dir)
	if err != nil {
		return 0
	}
	var n int64
	for _, e := range ents {
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
	}
	return n
}

// LastLineAt is the time of the last line of session id's items journal,
// read from its tail; zero when it cannot be read. A listing does not
// count lines dated in the future as activity, so this is how a plan
// finds a session whose last write is dated ahead of the clock.
func LastLineAt(fsys vfs.FS, ws, id string) time.Time {
	f, err := fsys.OpenFile(layout.Items(ws, id), os.O_RDONLY, 0)
	if err != nil {
		return time.Time{}
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return time.Time{}
	}
	off := max(fi.Size()-4096, 0)
	buf := make([]byte, fi.Size()-off)
	n, _ := f.ReadAt(buf, off)
	lines := bytes.Split(bytes.TrimRight(buf[:n], "\n"), []byte("\n"))
	var l struct {
		At timefmt.Time `json:"at"`
	}
	if len(lines) == 0 || json.Unmarshal(lines[len(lines)-1], &l) != nil {
		return time.Time{}
	}
	return l.At.Time
}
