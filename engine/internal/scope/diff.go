package scope

// Op is what happened to a path between two walks.
type Op int

const (
	Created Op = iota + 1
	Modified
	Deleted
	// ModeChanged: only the executable bit changed.
	ModeChanged
)

func (o Op) String() string {
	switch o {
	case Created:
		return "created"
	case Modified:
		return "modified"
	case Deleted:
		return "deleted"
	case ModeChanged:
		return "mode-changed"
	}
	return "unknown"
}

// Change is one path that differs between two walks. Before is nil for a
// created path, After for a deleted one.
type Change struct {
	Path          string
	Op            Op
	Before, After *Entry
}

// Diff lists the paths that differ from before to after, sorted by path.
// Folders appear only when created or deleted (a folder's own stat data
// changes with its entries, which are listed themselves). A change of type
// (file to link, file to folder) is Modified.
func Diff(before, after *Tree) []Change {
	return nil
}
