package engine

import "cairn/engine/internal/scope"

// lineScope is what shell line may change (seed "Recording", parsed by
// scope.Parse and followed through links by scope.Resolve): nothing for a
// line that only reads, the literal paths a line writes and the files they
// lead to (those outside the workspace or inside the state folder left
// out; none left is nothing), else the whole workspace.
func (w *Workspace) lineScope(line string) callScope { return w.lineScopeIn(line, "") }

// lineScopeIn is lineScope of a line run in folder dir (absolute; "" is
// the workspace), which its relative names are taken from.
func (w *Workspace) lineScopeIn(line, dir string) callScope {
	// The names are followed through the links they pass now, before the
	// line runs: a write through a link to a folder of the workspace
	// changes the files the link leads to.
	sc := scope.Resolve(scope.Parse(line, scope.Env{Root: w.path, Dir: dir}), w.path)
	if sc.Git && sc.Kind != scope.Workspace && scope.GitRunsPrograms(w.path) != "" {
		// git runs a program the repository names (a planted
		// core.fsmonitor, a diff driver): it may change any file.
		return callScope{Kind: scopeWorkspace}
	}
	switch sc.Kind {
	case scope.Paths:
		if ps := w.recordPaths(sc.Paths); len(ps) > 0 {
			return callScope{Kind: scopePaths, Paths: ps}
		}
	case scope.Workspace:
		return callScope{Kind: scopeWorkspace}
	}
	return callScope{Kind: ScopeNone}
}

// LineChanges reports whether shell line, run in folder dir (absolute;
// "" is the workspace), gets a record: false for a line that only reads,
// or writes only outside the workspace.
func (w *Workspace) LineChanges(line, dir string) bool {
	return w.lineScopeIn(line, dir).Kind != ScopeNone
}
