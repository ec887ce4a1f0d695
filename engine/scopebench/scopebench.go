// Package scopebench opens engine/internal/scope to cmd/cairn-bench, whose
// B2 case measures the whole-workspace walk, stat cache and watcher on
// their own (Go's internal rule keeps the package itself to engine). It
// adds nothing: aliases and one-line calls. Nothing else should import it;
// the engine's recording path is the way in for everyone else.
package scopebench

import (
	"context"

	"cairn/engine/internal/scope"
)

type (
	Options = scope.Options
	Tree    = scope.Tree
	Cache   = scope.Cache
	Change  = scope.Change
	Watcher = scope.Watcher
)

func Walk(ctx context.Context, root string, opts Options) (*Tree, error) {
	return scope.Walk(ctx, root, opts)
}

func Rescan(ctx context.Context, root string, prev *Tree, dirty []string, opts Options) (*Tree, error) {
	return scope.Rescan(ctx, root, prev, dirty, opts)
}

func NewCache() *Cache { return scope.NewCache() }

func Diff(before, after *Tree) []Change { return scope.Diff(before, after) }

func Watch(ctx context.Context, root string, opts Options) (*Watcher, error) {
	return scope.Watch(ctx, root, opts)
}
