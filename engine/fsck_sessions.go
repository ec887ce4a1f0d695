package engine

import (
	"encoding/json"
	"path"
	"strings"

	"cairn/internal/vfs"
	"cairn/journal"
)

// emptySession reports whether session id of workspace folder dir holds
// nothing: its items journal has no line but its session line (and open
// and repair lines), or no complete line at all (a line that is not JSON is
// damage, not emptiness: fsckJournal names it), and it has no change
// records, trail, shell history or tool outputs. Older builds left such
// sessions behind when their creation failed (a full disk); cairn now makes
// a session by one rename, with its first line, and removes one that ends
// up holding nothing.
func emptySession(fsys vfs.FS, dir, id string) bool {
	for _, n := range []string{changesName(dir, id), auditName(dir, id), shellName(dir, id), outputDir(dir, id), taskDir(dir, id)} {
		if _, err := fsys.Lstat(n); !vfs.IsNotExist(err) {
			return false
		}
	}
	empty := true
	jst, err := journal.Read(fsys, itemsName(dir, id), func(b []byte) error {
		var l struct {
			Kind string `json:"kind"`
		}
		if json.Unmarshal(b, &l) != nil {
			empty = false // a bad line is damage, reported as such
			return nil
		}
		switch l.Kind {
		case kindSession, kindOpen, journal.KindRepair:
		default:
			empty = false
		}
		return nil
	})
	return err == nil && empty && len(jst.Bad) == 0
}

// fsckEmptySessions names the sessions of workspace folder dir that hold
// nothing (emptySession): the picker lists them with no title and no item.
func (s *Store) fsckEmptySessions(dir string, bad reporter) {
	ents, err := s.fsys.ReadDir(path.Join(dir, "sessions"))
	if err != nil {
		return
	}
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".items.jsonl")
		if !ok || !validSessionID(id) || !emptySession(s.fsys, dir, id) {
			continue
		}
		bad(itemsName(dir, id), "empty session: it holds no item and nothing else (left by a creation that failed); remove %s to drop it",
			path.Join(dir, "sessions", id+".*"))
	}
}
