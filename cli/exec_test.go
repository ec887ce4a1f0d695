package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cairn/cli/cmdbase"
	"cairn/engine"
)

// TestREPLExecLines: :exec runs a recorded shell line and shows its output
// and record; !LINE runs the user's own line, unrecorded; Ctrl-C (the
// line's context cancelled) stops a running line, whose later commands
// never run, and the REPL goes on.
func TestREPLExecLines(t *testing.T) {
	store, err := engine.Open(filepath.Join(t.TempDir(), "home"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	dir, err := engine.Canonical(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, err := store.Workspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out, errw bytes.Buffer
	g := &Globals{Globals: cmdbase.Globals{Ctx: context.Background(), Stdout: &out, Stderr: &errw}}
	r := &repl{g: g, out: &out, errw: &errw, store: store, ws: ws}
	r.startNew()
	defer r.closeSession()

	r.handle(g.Ctx, ":exec x=1; echo shown; echo $x > a.txt")
	if o := out.String(); !strings.Contains(o, "shown\n") || !strings.Contains(o, ", record ") || !strings.Contains(o, "Changed a.txt.") {
		t.Fatalf(":exec output %q", o)
	}
	out.Reset()
	r.handle(g.Ctx, "!echo mine > b.txt")
	if o := out.String(); !strings.Contains(o, "your own line, no record") {
		t.Fatalf("!LINE output %q", o)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "b.txt")); string(b) != "mine\n" {
		t.Fatalf("b.txt %q", b)
	}

	out.Reset()
	ctx, cancel := context.WithCancel(g.Ctx)
	go func() {
		for {
			if _, err := os.Stat(filepath.Join(dir, "started")); err == nil {
				cancel()
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	r.handle(ctx, ":exec touch started; sleep 30; touch late")
	if o := out.String(); !strings.Contains(o, "Cancelled; the line was stopped.") || !strings.Contains(o, "[exit 137") {
		t.Fatalf("cancelled :exec output %q", o)
	}
	if _, err := os.Stat(filepath.Join(dir, "late")); !os.IsNotExist(err) {
		t.Fatalf("the cancelled line went on: %v", err)
	}
}
