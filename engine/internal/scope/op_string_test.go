package scope

// String names a change the way the walk tests list them.
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
