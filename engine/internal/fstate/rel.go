package fstate

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"
)

// ValidRel reports whether p is a name as change records hold them:
// relative, slash-separated, cleaned, not climbing out, not the workspace
// itself.
func ValidRel(p string) bool {
	return p != "" && p != "." && p != ".." && !path.IsAbs(p) && path.Clean(p) == p &&
		!strings.HasPrefix(p, "../") && !strings.ContainsRune(p, 0) && !strings.Contains(p, "\\..")
}

// Rel turns a path argument into a name of the workspace at root
// (absolute), as ValidRel says: an absolute path inside the workspace is
// made relative. One outside it, a name climbing out with "..", the
// workspace itself, and a name inside one of homes (state folders, as
// names relative to root; "" for one not inside it) are refused, wrapping
// bad.
func Rel(root string, homes []string, p string, bad error) (string, error) {
	orig := p
	if p == "" || strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("%w: path %q", bad, orig)
	}
	if filepath.IsAbs(p) {
		rel, err := filepath.Rel(root, filepath.Clean(p))
		if err != nil {
			return "", fmt.Errorf("%w: %s is outside the workspace %s", bad, orig, root)
		}
		p = rel
	}
	p = path.Clean(filepath.ToSlash(p))
	if p == ".." || strings.HasPrefix(p, "../") {
		return "", fmt.Errorf("%w: %s is outside the workspace %s", bad, orig, root)
	}
	if !ValidRel(p) {
		return "", fmt.Errorf("%w: path %q does not name a file of the workspace", bad, orig)
	}
	for _, h := range homes {
		if h != "" && (p == h || strings.HasPrefix(p, h+"/")) {
			return "", fmt.Errorf("%w: %s is inside cairn's state folder", bad, orig)
		}
	}
	return p, nil
}

// HomeRel is the state folder home (canonical) relative to the workspace
// at root, or "" when it is not inside it.
func HomeRel(root, home string) string {
	rel, err := filepath.Rel(root, home)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
		return ""
	}
	return filepath.ToSlash(rel)
}
