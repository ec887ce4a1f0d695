package engine

import "path"

// The changes journal's format, its lines and their validation are package
// changes' (engine/internal/changes/format.go draws every line); its name
// beside the items journal is the session's.

func changesName(dir, id string) string { return path.Join(dir, "sessions", id+".changes.jsonl") }
