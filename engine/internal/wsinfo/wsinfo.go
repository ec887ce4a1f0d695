package wsinfo

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"cairn/engine/internal/convlog"
	"cairn/engine/internal/errs"
	"cairn/engine/internal/layout"
	"cairn/engine/wskey"
	"cairn/internal/vfs"
	"cairn/journal"
)

// Settle rewrites the workspace.json of disputed folder d when its
// sessions agree that it is d.Path's, or refuses (home is the state
// folder, for the messages). repaired says what was rewritten; note, when
// a read could not rewrite it, why the folder is used anyway.
func Settle(fsys vfs.FS, home string, d *wskey.DisputedError, create bool, now func() time.Time) (key, note, repaired string, err error) {
	folder := filepath.Join(home, layout.Workspaces, d.Key)
	what := "is missing"
	switch {
	case d.Named != "":
		what = "names " + d.Named
	case errors.Is(d.Err, syscall.EISDIR):
		what = "is a folder"
	case errors.Is(d.Err, vfs.ErrNotRegular):
		what = "is not a regular file"
	case !vfs.IsNotExist(d.Err):
		what = "is unreadable"
	}
	n, others := sessionPaths(fsys, layout.WorkspaceDir(d.Key), d.Path)
	if len(others) > 0 {
		return "", "", "", errs.Refusedf("workspace folder %s has this directory's name, but its workspace.json %s and sessions in it were made in %s; "+
			"nothing was used or changed. If they belong here (the directory was moved or renamed), run `cairn storage adopt` in %s; "+
			"otherwise move the folder away", folder, what, strings.Join(others, ", "), d.Path)
	}
	aside, werr := Aside(fsys, d.Key)
	if aside != "" {
		what += ", moved aside to " + aside
	}
	if werr == nil {
		werr = wskey.WriteInfo(fsys, layout.Workspaces, d.Key, d.Path, now)
	}
	if werr != nil {
		if create {
			return "", "", "", fmt.Errorf("engine: workspace folder %s: its workspace.json %s and could not be rewritten: %w", folder, what, werr)
		}
		// Reads need no write: the folder is this directory's by its name
		// and by every session in it.
		return d.Key, fmt.Sprintf("workspace folder %s: its workspace.json %s and could not be rewritten (%v); its %d sessions were made here, so it is used", folder, what, werr, n), "", nil
	}
	repaired = fmt.Sprintf("workspace folder %s: its workspace.json %s; its %d sessions were made here, so it was rewritten to name %s", folder, what, n, d.Path)
	if later := laterFolders(fsys, d.Key, d.Path); len(later) > 0 {
		repaired += fmt.Sprintf("; the sessions made meanwhile in %s are not listed here (see cairn storage fsck)", strings.Join(later, ", "))
	}
	return d.Key, "", repaired, nil
}

// laterFolders lists the folders key~N that name p: made by older builds
// while key's workspace.json was damaged.
func laterFolders(fsys vfs.FS, key, p string) []string {
	ents, err := fsys.ReadDir(layout.Workspaces)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), key)
		if !ok || !SuffixN(rest) {
			continue
		}
		if in, err := wskey.ReadInfo(fsys, path.Join(layout.Workspaces, e.Name())); err == nil && in.Path == p {
			out = append(out, e.Name())
		}
	}
	return out
}

// sessionPaths reads the path each session of workspace folder dir was made
// in, from its items journal's session line (or, lacking one, its record),
// and returns how many sessions there are and the paths other than p.
func sessionPaths(fsys vfs.FS, dir, p string) (n int, others []string) {
	ents, err := fsys.ReadDir(path.Join(dir, "sessions"))
	if err != nil {
		return 0, nil
	}
	stop := errors.New("stop")
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".items.jsonl")
		if !ok || !layout.ValidSessionID(id) {
			continue
		}
		made := ""
		journal.Read(fsys, layout.Items(dir, id), func(b []byte) error {
			var l struct {
				Kind string `json:"kind"`
				Path string `json:"path"`
			}
			if json.Unmarshal(b, &l) == nil && l.Kind == convlog.KindSession {
				made = l.Path
			}
			return stop
		})
		if made == "" {
			made = recordPath(fsys, dir, id)
		}
		if made == "" {
			continue // holds nothing that says where: an empty session, named by fsck
		}
		n++
		if made != p && !slices.Contains(others, made) {
			others = append(others, made)
		}
	}
	return n, others
}

// Aside moves a folder that stands where workspace folder key's
// workspace.json belongs (no rename of a new workspace.json can replace a
// folder) aside, to workspace.json.damaged (or .damaged~N, the first
// name free) beside it, and returns that name; "" when there is no such
// folder. A FIFO or any other file there is replaced by the rename itself.
func Aside(fsys vfs.FS, key string) (string, error) {
	name := path.Join(layout.Workspaces, key, wskey.InfoFile)
	if fi, err := fsys.Lstat(name); err != nil || !fi.IsDir() {
		return "", nil
	}
	for n := 1; n <= 1000; n++ {
		aside := name + ".damaged"
		if n > 1 {
			aside += "~" + strconv.Itoa(n)
		}
		if _, err := fsys.Lstat(aside); err == nil {
			continue
		} else if !vfs.IsNotExist(err) {
			return "", fmt.Errorf("engine: move the folder %s aside: %w", name, err)
		}
		if err := fsys.Rename(name, aside); err != nil {
			return "", fmt.Errorf("engine: move the folder %s aside: %w", name, err)
		}
		return path.Base(aside), fsys.SyncDir(path.Dir(name))
	}
	return "", fmt.Errorf("engine: move the folder %s aside: %s.damaged~1000 are taken", name, name)
}

// Check reports a workspace.json that names a path whose folder
// this is not: its name is neither that path's key nor that key with a ~N
// suffix. cairn uses such a folder for no directory until it is settled.
func Check(fsys vfs.FS, dir string, bad func(where, format string, a ...any)) {
	name := path.Join(dir, wskey.InfoFile)
	in, err := wskey.ReadInfo(fsys, dir)
	if err != nil {
		var raw struct {
			V    int    `json:"v"`
			Path string `json:"path"`
		}
		if b, rerr := vfs.ReadFile(fsys, name); rerr == nil && json.Unmarshal(b, &raw) == nil && raw.V == 1 && raw.Path != "" && !strings.HasPrefix(raw.Path, "/") {
			bad(name, "names %q, which is not an absolute path: cairn uses this folder for no directory", raw.Path)
		}
		return
	}
	key, folder := wskey.Key(in.Path), path.Base(dir)
	if rest, ok := strings.CutPrefix(folder, key); ok && (rest == "" || SuffixN(rest)) {
		// A folder of the path's that the path no longer resolves to: a
		// ~N made while the path's own folder had a damaged workspace.json.
		if used, _, err := wskey.Resolve(fsys, layout.Workspaces, in.Path, false, nil); err == nil && used != folder {
			bad(name, "names %s, but cairn uses folder %s for it: the sessions here are not listed there (made while that folder's workspace.json was damaged); move them into it to see them",
				in.Path, used)
		}
		return
	}
	hint := "correct or remove it"
	if p, err := wskey.Decode(folder); err == nil {
		hint = fmt.Sprintf("if its sessions belong to %s, run `cairn storage adopt` there", p)
	}
	bad(name, "names %s, whose folder would be %s: cairn uses this folder for no directory until it is settled; %s", in.Path, key, hint)
}

// SuffixN reports whether t is a workspace key's "~N" suffix (N >= 2).
func SuffixN(t string) bool {
	n, err := strconv.Atoi(strings.TrimPrefix(t, "~"))
	return strings.HasPrefix(t, "~") && err == nil && n >= 2 && t[1] != '0' && t[1] != '+' && t[1] != '-'
}

// recordPath is the path session id's record says it was made in, "" when
// the record is missing or not id's.
func recordPath(fsys vfs.FS, dir, id string) string {
	b, err := vfs.ReadFile(fsys, layout.Record(dir, id))
	if err != nil {
		return ""
	}
	var r struct {
		V    int    `json:"v"`
		ID   string `json:"id"`
		Path string `json:"path"`
	}
	if json.Unmarshal(b, &r) != nil || r.V != 1 || r.ID != id {
		return ""
	}
	return r.Path
}
