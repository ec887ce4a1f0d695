package checkouts

import (
	"os"
	"strings"

	"cairn/internal/vfs"
)

// Returned is a removed checkout whose sessions moved back.
type Returned struct {
	From     string   `json:"from"` // the removed checkout (or a folder in it)
	To       string   `json:"to"`
	Sessions []string `json:"sessions"`
	Err      string   `json:"error,omitempty"` // why they could not move (a session open elsewhere)
}

// Target is the checkout of r that the sessions of removed ones return
// to: the main one, else the one holding the directory asked about; ""
// when both are gone.
func (r *Repository) Target() string {
	var target string
	for _, c := range r.Checkouts {
		if !c.Gone && (c.Main || target == "" && c.Current) {
			target = c.Path
		}
	}
	return target
}

// Removed is the removed worktrees of r: those it still lists with their
// folder gone, and those cairn saw sessions in (repos/, read through fsys)
// whose folder is gone.
func (r *Repository) Removed(fsys vfs.FS) map[string]bool {
	gone := map[string]bool{}
	for _, c := range r.Checkouts {
		if c.Gone {
			gone[c.Path] = true
		}
	}
	for _, p := range Known(fsys, r.CommonDir) {
		if _, err := os.Stat(p); os.IsNotExist(err) {
			gone[p] = true
		}
	}
	return gone
}

// In is p when p is one of gone or a folder inside one, else "".
func In(p string, gone map[string]bool) string {
	for g := range gone {
		if p == g || strings.HasPrefix(p, g+"/") {
			return p
		}
	}
	return ""
}
