package engine

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
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

// The engine and the packages below it hold no mutable state of the
// process: a package-level variable is a sentinel error, a compiled
// pattern, a table of constants, or Version (set at link time). Anything
// else (a map, a mutex, a counter, a knob tests turn) hangs off the Store.
func TestNoProcessGlobals(t *testing.T) {
	fset := token.NewFileSet()
	var found []string
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		af, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		for _, decl := range af.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, n := range vs.Names {
					var v ast.Expr
					if i < len(vs.Values) {
						v = vs.Values[i]
					}
					if n.Name == "_" || n.Name == "Version" || constantValue(v) || linkedTable(p, n.Name) {
						continue
					}
					found = append(found, fset.Position(n.Pos()).String()+": "+n.Name)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(found)
	if len(found) > 0 {
		t.Fatalf("package-level variables that may hold process state (hang them off the Store):\n%s", strings.Join(found, "\n"))
	}
}

// linkedTable reports whether a package variable is the one table of what
// a program was linked with: the remote providers, filled by the init of
// the provider packages a program imports (database/sql's drivers are
// the model) and only read after, the same for every Store.
func linkedTable(file, name string) bool {
	return filepath.ToSlash(file) == "internal/remote/provider.go" && name == "providers"
}

// constantValue reports whether v, a package variable's value, is a
// constant in all but name: errors.New or fmt.Errorf, regexp.MustCompile or
// lazyre.New (compiled on first use), strings.Fields of a literal, a slice, array or map literal of
// literals (a fixed table no code writes to), sync.OnceValue of a function
// returning one of these (the table built on first use, not at init), or
// another package's sentinel error given a name here (engine.ErrRefused is
// errs.ErrRefused, engine.ErrWorkPaused is bgwork.ErrPaused).
func constantValue(v ast.Expr) bool {
	switch v := v.(type) {
	case *ast.SelectorExpr:
		pkg, _ := v.X.(*ast.Ident)
		return pkg != nil && strings.HasPrefix(v.Sel.Name, "Err")
	case *ast.CallExpr:
		sel, ok := v.Fun.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		pkg, _ := sel.X.(*ast.Ident)
		if pkg == nil {
			return false
		}
		switch pkg.Name + "." + sel.Sel.Name {
		case "errors.New", "fmt.Errorf", "regexp.MustCompile", "lazyre.New", "strings.Fields":
			return true
		case "sync.OnceValue":
			return len(v.Args) == 1 && returnsConstant(v.Args[0])
		}
	case *ast.CompositeLit:
		switch v.Type.(type) {
		case *ast.ArrayType, *ast.MapType:
			return literalOnly(v)
		}
	}
	return false
}

// returnsConstant reports whether e is a function literal whose body is
// one return of a constantValue.
func returnsConstant(e ast.Expr) bool {
	f, ok := e.(*ast.FuncLit)
	if !ok || len(f.Body.List) != 1 {
		return false
	}
	r, ok := f.Body.List[0].(*ast.ReturnStmt)
	return ok && len(r.Results) == 1 && constantValue(r.Results[0])
}

// literalOnly reports whether e is built of literals only.
func literalOnly(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.BasicLit, *ast.Ident:
		return true
	case *ast.KeyValueExpr:
		return literalOnly(e.Key) && literalOnly(e.Value)
	case *ast.CompositeLit:
		for _, x := range e.Elts {
			if !literalOnly(x) {
				return false
			}
		}
		return true
	}
	return false
}
