package hookcmd

import (
	"path/filepath"
	"slices"
)

// What `cairn hook uninstall` must leave in a settings file although it
// empties it: the "hooks" object, or an event's list, that the user had
// before cairn's install, empty. Uninstall takes out cairn's handlers and
// the containers install made for them, and nothing the user had, so the
// file comes back key for key. The file alone cannot tell an empty list
// the user wrote from one install made and uninstall emptied, so install
// notes the user's empty containers in the state folder (Store.HookKept),
// per settings file; uninstall reads the note and drops it. A settings file with no note is one whose containers install made
// (or one installed before notes were kept): its emptied containers go.

// hookKeptAt is what install notes of the settings root before it merges
// cairn's entries for events: was, the note so far, with each container
// found empty added and each container not there taken out (the user
// removed it since), the rest as it was.
func hookKeptAt(root *jObj, events []string, was []string) []string {
	kept := slices.Clone(was)
	note := func(key string, v any, there bool) {
		empty := false
		switch v := v.(type) {
		case *jObj:
			empty = len(v.keys) == 0
		case []any:
			empty = len(v) == 0
		}
		i := slices.Index(kept, key)
		switch {
		case !there && i >= 0:
			kept = slices.Delete(kept, i, i+1)
		case there && empty && i < 0:
			kept = append(kept, key)
		}
	}
	hooks, there := root.vals["hooks"]
	note("hooks", hooks, there)
	h, _ := hooks.(*jObj)
	for _, ev := range events {
		var v any
		there := false
		if h != nil {
			v, there = h.vals[ev]
		}
		note("hooks."+ev, v, there)
	}
	slices.Sort(kept)
	return slices.Compact(kept)
}

// hookKeptKey is the note's key of the settings file name: its path with
// links resolved.
func hookKeptKey(name string) string {
	if t, err := filepath.EvalSymlinks(name); err == nil {
		return t
	}
	return name
}
