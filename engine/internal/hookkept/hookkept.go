// Package hookkept is the state folder's note of the containers of agent
// settings files that `cairn hook uninstall` must leave: the "hooks"
// object, or an event's list, that the user had before cairn's install,
// empty. Uninstall takes out cairn's handlers and the containers install
// made for them, and nothing the user had; the settings file alone
// cannot tell an empty list the user wrote from one install made and
// uninstall emptied, so install notes the user's here, per settings file,
// and uninstall drops the note.
//
// The note is one file at the top of the state folder, File:
//
//	{"v":1,"files":{"/home/me/p/.claude/settings.local.json":["hooks","hooks.PreToolUse"]}}
//
// keyed by the settings file's absolute path, its values the containers
// ("hooks", "hooks.<event>"), sorted. It is replaced atomically and is
// removed when no file is left in it. A note that cannot be read is an
// empty one: uninstall then takes out the containers it empties, as it
// did before notes were kept.
package hookkept

import (
	"encoding/json"
	"errors"
	"io/fs"
	"slices"

	"cairn/internal/vfs"
)

// File is the note's name in the state folder.
const File = "hook-installs.json"

type note struct {
	V     int                 `json:"v"`
	Files map[string][]string `json:"files"`
}

func read(fsys vfs.FS) note {
	n := note{V: 1, Files: map[string][]string{}}
	b, err := vfs.ReadFile(fsys, File)
	if err != nil || json.Unmarshal(b, &n) != nil || n.V != 1 || n.Files == nil {
		return note{V: 1, Files: map[string][]string{}}
	}
	return n
}

// Get is the containers noted for the settings file name.
func Get(fsys vfs.FS, name string) []string { return read(fsys).Files[name] }

// Set notes kept for the settings file name (none: its note goes); the
// file is written only when the note changes.
func Set(fsys vfs.FS, name string, kept []string) error {
	n := read(fsys)
	kept = slices.Compact(slices.Sorted(slices.Values(kept)))
	if slices.Equal(n.Files[name], kept) {
		return nil
	}
	if len(kept) == 0 {
		delete(n.Files, name)
	} else {
		n.Files[name] = kept
	}
	if len(n.Files) == 0 {
		if err := fsys.Remove(File); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	b, err := json.Marshal(n)
	if err != nil {
		return err
	}
	return vfs.WriteFileAtomic(fsys, File, append(b, '\n'))
}
