package fstate

import (
	"path"
	"strings"
)

// ValidRel reports whether p is a name as change records hold them:
// relative, slash-separated, cleaned, not climbing out, not the workspace
// itself.
func ValidRel(p string) bool {
	return p != "" && p != "." && p != ".." && !path.IsAbs(p) && path.Clean(p) == p &&
		!strings.HasPrefix(p, "../") && !strings.ContainsRune(p, 0) && !strings.Contains(p, "\\..")
}
