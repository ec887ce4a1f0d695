package trash

import (
	"fmt"
	"path"
	"strings"

	"cairn/engine/internal/fileplan"
	"cairn/engine/internal/layout"
	"cairn/internal/vfs"
)

// Kinds of the plans of a forget, a restore and a trim (plans/<id>.json,
// package fileplan draws the file). Part of the format.
const (
	KindForget  = "forget"
	KindRestore = "restore"
	KindTrim    = "trim"
)

// SessionFiles lists session id's files under folder root (a workspace
// folder or a trash entry), relative to root: its items journal first,
// then the other files of sessions/ named <id>.<anything> but its lock,
// then the files of its per-session folders (ForgetFolders). Temp files
// are left out: prune collects them.
func SessionFiles(fsys vfs.FS, root, id string) ([]string, error) {
	subs := []string{path.Join(layout.Sessions, id+".items.jsonl")}
	if _, err := fsys.Lstat(path.Join(root, subs[0])); err != nil {
		return nil, err
	}
	ents, err := fsys.ReadDir(path.Join(root, layout.Sessions))
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		name := e.Name()
		if !strings.HasPrefix(name, id+".") || name == id+".items.jsonl" || name == id+".lock" || !e.Type().IsRegular() {
			continue
		}
		subs = append(subs, path.Join(layout.Sessions, name))
	}
	for _, folder := range ForgetFolders() {
		files, err := fsys.ReadDir(path.Join(root, folder, id))
		if vfs.IsNotExist(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			if f.Type().IsRegular() && !vfs.IsTemp(f.Name()) {
				subs = append(subs, path.Join(folder, id, f.Name()))
			}
		}
	}
	return subs, nil
}

// Pairs joins subs to from and to.
func Pairs(subs []string, from, to string) []fileplan.Pair {
	out := make([]fileplan.Pair, len(subs))
	for i, sub := range subs {
		out[i] = fileplan.Pair{From: path.Join(from, sub), To: path.Join(to, sub)}
	}
	return out
}

// CheckPlan checks that plan p of session id, read from file name, names
// only that session's files, in its workspace folder and its trash entry,
// in the order its kind writes them.
func CheckPlan(p *fileplan.Plan, id, name string) error {
	bad := func(why string) error {
		return fmt.Errorf("%w: %s: %s", fileplan.ErrNotPlan, name, why)
	}
	if p.Session != id || !layout.ValidKey(p.Workspace) {
		return bad("not this session's, or no workspace")
	}
	ws, entry := layout.WorkspaceDir(p.Workspace)+"/", Entry(id)+"/"
	inside := func(name, root string) bool {
		return strings.HasPrefix(name, root) && path.Clean(name) == name && strings.Contains(name[len(root):], id)
	}
	switch p.Kind {
	case KindForget, KindRestore:
		from, to := ws, entry
		if p.Kind == KindRestore {
			from, to = entry, ws
		}
		if len(p.Files) == 0 || p.Stage == fileplan.StageRun {
			return bad("a move without files")
		}
		for _, f := range p.Files {
			if !inside(f.From, from) || !inside(f.To, to) || strings.TrimPrefix(f.From, from) != strings.TrimPrefix(f.To, to) {
				return bad("a file outside the session: " + f.From)
			}
		}
		key := p.Files[0] // a forget's items journal
		if p.Kind == KindRestore {
			key = p.Files[len(p.Files)-1]
		}
		if path.Base(key.From) != id+".items.jsonl" {
			return bad("the items journal is not where a move puts it")
		}
	case KindTrim:
		if p.Stage != fileplan.StageRun || len(p.Files) > 0 {
			return bad("a trim with files")
		}
	default:
		return bad("kind " + p.Kind)
	}
	return nil
}
