package engine

import "cairn/engine/internal/hookkept"

// HookKept is what `cairn hook install` noted of the agent settings file
// name (an absolute path): the containers of it the user had, empty,
// which uninstall leaves (engine/internal/hookkept).
func (s *Store) HookKept(name string) []string { return hookkept.Get(s.fsys, name) }

// SetHookKept replaces that note; none removes it.
func (s *Store) SetHookKept(name string, kept []string) error {
	return hookkept.Set(s.fsys, name, kept)
}
