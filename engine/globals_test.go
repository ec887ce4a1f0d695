package engine

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// A store keeps what its sessions do (outputs cleaned, output names being
// written, running shell commands) itself: once closed and dropped, nothing
// of the process holds it, so an embedder can open as many as it likes.
func TestClosedStoreIsCollected(t *testing.T) {
	ctx := context.Background()
	home, dir := filepath.Join(t.TempDir(), "home"), t.TempDir()
	collected := make(chan struct{})
	func() {
		s, err := Open(home)
		if err != nil {
			t.Fatal(err)
		}
		ws, err := s.Workspace(dir)
		if err != nil {
			t.Fatal(err)
		}
		sess := ws.Create(SessionOptions{}) // not newSession: its t.Cleanup would hold the store
		if _, err := sess.Append(ctx, Item{Type: User, Text: "hello"}); err != nil {
			t.Fatal(err)
		}
		if _, err := sess.PutOutput(ctx, "grep", strings.NewReader("out")); err != nil {
			t.Fatal(err)
		}
		run, err := sess.ShellStart(ctx, "make")
		if err != nil {
			t.Fatal(err)
		}
		if err := run.Finish(ctx, 0, []byte("ok"), nil); err != nil {
			t.Fatal(err)
		}
		if err := sess.Close(); err != nil {
			t.Fatal(err)
		}
		// Opening a session cleans the workspace's orphan outputs once.
		re, err := ws.Open(ctx, sess.ID(), SessionOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := re.ShellStart(ctx, "make check"); err != nil {
			t.Fatal(err)
		}
		if err := re.Close(); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		runtime.AddCleanup(s, func(ch chan struct{}) { close(ch) }, collected)
	}()
	for range 500 {
		runtime.GC()
		select {
		case <-collected:
			return
		default:
		}
		time.Sleep(time.Millisecond) // let the cleanup goroutine run
	}
	t.Fatal("a closed store is still reachable after 500 collections: something of the process holds it")
}

// Two stores of one state folder in one process: the one that does not own
// the session sees its running command as running, as another process
// would, and as interrupted once the owner closes it.
func TestShellRunningSeenFromAnotherStore(t *testing.T) {
	ctx := context.Background()
	home, dir := filepath.Join(t.TempDir(), "home"), t.TempDir()
	a, err := Open(home)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(home)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	wsA, err := a.Workspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	wsB, err := b.Workspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	sess := newSession(t, wsA)
	if _, err := sess.ShellStart(ctx, "sleep 100"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		ws   *Workspace
	}{{"owner's store", wsA}, {"other store", wsB}} {
		h, err := c.ws.ShellHistory(ctx, sess.ID())
		if err != nil {
			t.Fatal(err)
		}
		if len(h) != 1 || h[0].Status != ShellRunning {
			t.Fatalf("%s: %+v, want one running command", c.name, h)
		}
	}
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
	for _, ws := range []*Workspace{wsA, wsB} {
		if h, _ := ws.ShellHistory(ctx, sess.ID()); len(h) != 1 || h[0].Status != ShellInterrupted {
			t.Fatalf("after close: %+v, want one interrupted command", h)
		}
	}
}

// The engine holds no mutable state of the process: every package-level
// variable is a constant in all but name (compiled patterns, sentinel
// errors, fixed tables) or a build or test knob. A new one must be added
// here with a reason, or hang off the Store.
func TestNoProcessGlobals(t *testing.T) {
	allowed := map[string]string{
		"labelRE":           "compiled pattern",
		"permRE":            "compiled pattern",
		"snapIDRE":          "compiled pattern",
		"errNoop":           "sentinel error",
		"errReadOnly":       "sentinel error",
		"errNoStore":        "sentinel error",
		"ErrOutputTooLarge": "sentinel error",
		"policyKeys":        "fixed table",
		"Version":           "set at link time",
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var found []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, spec := range g.Specs {
				for _, n := range spec.(*ast.ValueSpec).Names {
					if n.Name == "_" || strings.HasPrefix(n.Name, "Err") && f == "errors.go" {
						continue
					}
					if _, ok := allowed[n.Name]; !ok {
						found = append(found, fset.Position(n.Pos()).String()+": "+n.Name)
					}
				}
			}
		}
	}
	slices.Sort(found)
	if len(found) > 0 {
		t.Fatalf("package-level variables that may hold process state (hang them off the Store):\n%s", strings.Join(found, "\n"))
	}
}
