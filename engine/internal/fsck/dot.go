package fsck

import (
	"strings"

	"cairn/internal/vfs"
)

// DotNote is what fsck says of a dot file in the state folder, and whether
// name is one. A temp name (vfs.IsTemp) is a write in progress or one a
// crash left, collected on the next open once its writer is gone. Any other
// dot file is not cairn's by name (an earlier version's temp file, or one a
// person put there): it is left in place, for a person to remove.
func DotNote(name string) (string, bool) {
	switch {
	case vfs.IsTemp(name):
		return "temp file of a write in progress or left by an interrupted one (collected on the next open once its writer is gone)", true
	case strings.HasPrefix(name, "."):
		return "dot file not named as cairn names its temp files (an earlier version's temp file, or put here by hand): left in place", true
	}
	return "", false
}
