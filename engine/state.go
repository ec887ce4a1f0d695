package engine

import "cairn/engine/internal/convlog"

// state is a session folded from its items journal: the conversation
// tree, the head, and the standing state the record summarises
// (convlog.State, which folds it).
type state = convlog.State

func newState(id, path string) *state { return convlog.NewState(id, path) }
