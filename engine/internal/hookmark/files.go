package hookmark

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"cairn/engine/internal/audit"
	"cairn/engine/internal/changes"
	"cairn/engine/internal/errs"
	"cairn/engine/internal/fstate"
	"cairn/internal/lazyre"
	"cairn/internal/vfs"
)

var callRE = lazyre.New(`^[A-Za-z0-9_.-]{1,128}$`)

// Name is the marker file of call in a session's hooks folder dir: the
// call itself when it is a plain name, else a hash of it.
func Name(dir, call string) string {
	if !callRE.MatchString(call) || strings.HasPrefix(call, ".") {
		h := sha256.Sum256([]byte(call))
		call = hex.EncodeToString(h[:16])
	}
	return path.Join(dir, call+".json")
}

// ReadChange is the file edit marker name holds (b), checked: its version,
// its tool's label and each file's path and pre-image.
func ReadChange(name string, b []byte) (*Change, error) {
	var p Change
	if err := json.Unmarshal(b, &p); err != nil || p.V != 1 || !audit.ValidLabel(p.Tool) || len(p.Files) == 0 {
		return nil, fmt.Errorf("%w: pending change %s is not readable", errs.ErrFormat, name)
	}
	for _, f := range p.Files {
		if !fstate.ValidRel(f.Path) || (f.Before != nil && !f.Before.Valid(fstate.FormBefore)) {
			return nil, fmt.Errorf("%w: pending change %s names a bad file", errs.ErrFormat, name)
		}
	}
	return &p, nil
}

// Sweep removes the markers of hooks folder dir last changed before cut
// (their agent died between the two hooks), leaving the files named in
// keep, and returns the shell commands' among them; an error when dir
// cannot be read. Best effort.
func Sweep(fsys vfs.FS, dir string, cut time.Time, keep ...string) ([]Exec, error) {
	ents, err := fsys.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var stale []Exec
	for _, e := range ents {
		if slices.Contains(keep, e.Name()) {
			continue
		}
		if fi, err := e.Info(); err != nil || !fi.ModTime().Before(cut) {
			continue
		}
		name := path.Join(dir, e.Name())
		if p, ok := readExec(fsys, name); ok {
			stale = append(stale, p)
		}
		fsys.Remove(name)
	}
	return stale, nil
}

// readExec is the shell command marker name holds, when it holds one.
func readExec(fsys vfs.FS, name string) (Exec, bool) {
	var p Exec
	b, err := vfs.ReadFile(fsys, name)
	ok := err == nil && strings.HasSuffix(name, ".json") && json.Unmarshal(b, &p) == nil &&
		p.Kind == KindExec && changes.ValidSnapID(p.ID) && audit.ValidLabel(p.Tool)
	return p, ok
}
