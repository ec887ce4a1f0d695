package engine_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// embedderMain is a runtime outside this module. It imports public
// packages only (engine, and httpapi for its gateway token), configures the store through options (the engine reads no
// environment), and runs a session with a prompt, a tool write and an
// undo on the real disk.
const embedderMain = `package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"cairn/engine"
	"cairn/httpapi"
)

func main() {
	ctx := context.Background()
	home, project := os.Args[1], os.Args[2]
	store, err := engine.Open(home, engine.WithMaxEagerLoadMB(64), engine.WithEphemeralRoot(os.Args[3]))
	if err != nil {
		panic(err)
	}
	defer store.Close()
	ws, err := store.Workspace(project)
	if err != nil {
		panic(err)
	}
	sess := ws.Create(engine.SessionOptions{})
	if _, err := sess.Append(ctx, engine.Item{Type: engine.User, Text: "make a file"}); err != nil {
		panic(err)
	}
	if _, err := sess.ToolWrite(ctx, "made.txt", []byte("hello\n")); err != nil {
		panic(err)
	}
	if err := sess.EndTurn(ctx, engine.Turn{Model: "m"}); err != nil {
		panic(err)
	}
	_, statErr := os.Stat(filepath.Join(project, "made.txt"))
	undo, err := sess.Undo(ctx)
	if err != nil {
		panic(err)
	}
	_, goneErr := os.Stat(filepath.Join(project, "made.txt"))
	if err := sess.Close(); err != nil {
		panic(err)
	}
	list, _, err := ws.List(ctx)
	if err != nil {
		panic(err)
	}
	token, _, err := httpapi.GatewayToken(store) // the HTTP API is public too
	if err != nil {
		panic(err)
	}
	fmt.Printf("written %v; undo removed %d; gone %v; sessions %d %q; token %d\n",
		statErr == nil, len(undo.Steps[0].Removed), os.IsNotExist(goneErr), len(list), list[0].Title, len(token))
}
`

// internalMain reaches for a package under internal/: the go tool must
// refuse it, or the module above would not be "outside".
const internalMain = `package main

import "cairn/internal/vfs"

func main() { _ = vfs.DirPerm }
`

// TestEmbedOutsideModule builds and runs a program in a module of its own
// that needs this one through a replace directive: a runtime can open a
// store, run a session and its file tools, and undo, importing nothing
// under internal/.
func TestEmbedOutsideModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program with the go tool")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	build := func(t *testing.T, src string) (string, string, error) {
		t.Helper()
		mod := t.TempDir()
		files := map[string]string{
			"go.mod":  "module example.com/embedder\n\ngo 1.26\n\nrequire cairn v0.0.0\n\nreplace cairn => " + root + "\n",
			"go.sum":  string(sum),
			"main.go": src,
		}
		for name, body := range files {
			if err := os.WriteFile(filepath.Join(mod, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		bin := filepath.Join(mod, "embedder")
		cmd := exec.Command(goTool, "build", "-o", bin, ".")
		cmd.Dir = mod
		// Offline: every module it needs is in the module cache already,
		// as this module's own build needed them. -mod=mod lets the go
		// tool write the indirect requirements into the new go.mod.
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "GOTOOLCHAIN=local")
		out, err := cmd.CombinedOutput()
		return bin, string(out), err
	}

	t.Run("public packages", func(t *testing.T) {
		bin, out, err := build(t, embedderMain)
		if err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
		home, project, runtimeDir := filepath.Join(t.TempDir(), "home"), t.TempDir(), t.TempDir()
		run := exec.Command(bin, home, project, runtimeDir)
		got, err := run.CombinedOutput()
		if err != nil {
			t.Fatalf("run: %v\n%s", err, got)
		}
		want := "written true; undo removed 1; gone true; sessions 1 \"make a file\"; token 64\n"
		if string(got) != want {
			t.Fatalf("the embedder printed %q, want %q", got, want)
		}
		if _, err := os.Stat(filepath.Join(home, "FORMAT")); err != nil {
			t.Fatalf("no state folder at %s: %v", home, err)
		}
	})

	t.Run("internal refused", func(t *testing.T) {
		_, out, err := build(t, internalMain)
		if err == nil || !strings.Contains(out, "use of internal package") {
			t.Fatalf("a program outside the module built with cairn/internal/vfs: %v\n%s", err, out)
		}
	})
}
