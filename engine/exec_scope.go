package engine

// lineScope is what shell line may change (seed "Recording"): nothing for
// a line that only reads, the literal paths a line writes, else the whole
// workspace.
func (w *Workspace) lineScope(line string) CallScope {
	return CallScope{Kind: ScopeWorkspace}
}
