package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"cairn/engine"
)

// A runtime opens the state folder, starts a session in its working
// directory, appends the turn's items and ends the turn.
func Example() {
	ctx := context.Background()
	home, _ := os.MkdirTemp("", "cairn-example-home-")
	project, _ := os.MkdirTemp("", "cairn-example-project-")
	defer os.RemoveAll(home)
	defer os.RemoveAll(project)

	store, err := engine.Open(home)
	if err != nil {
		panic(err)
	}
	defer store.Close()
	ws, _ := store.Workspace(project)

	sess := ws.Create(engine.SessionOptions{})
	sess.Append(ctx, engine.Item{Type: engine.User, Text: "Add a --verbose flag"})
	sess.Append(ctx, engine.Item{Type: engine.Assistant, Text: "Added it to main.go."})
	if err := sess.EndTurn(ctx, engine.Turn{Model: "m", Labels: []string{"prompt"}}); err != nil {
		panic(err)
	}
	sess.Close()

	list, _, _ := ws.List(ctx)
	fmt.Println(len(list), list[0].Title, list[0].Items)
	// Output: 1 Add a --verbose flag 2
}

// Resuming takes ownership; a second owner is refused with the first's pid.
func ExampleWorkspace_Open() {
	ctx := context.Background()
	home, _ := os.MkdirTemp("", "cairn-example-home-")
	project, _ := os.MkdirTemp("", "cairn-example-project-")
	defer os.RemoveAll(home)
	defer os.RemoveAll(project)
	store, _ := engine.Open(home)
	defer store.Close()
	ws, _ := store.Workspace(project)

	first := ws.Create(engine.SessionOptions{})
	first.Append(ctx, engine.Item{Type: engine.User, Text: "hello"})
	first.Commit(ctx)

	_, err := ws.Open(ctx, first.ID(), engine.SessionOptions{})
	var busy *engine.BusyError
	fmt.Println(errors.As(err, &busy), busy.PID == os.Getpid())

	first.Close()
	again, err := ws.Open(ctx, first.ID(), engine.SessionOptions{})
	fmt.Println(err, len(again.Transcript()))
	again.Close()
	// Output:
	// true true
	// <nil> 1
}

// Renaming marks the title as the user's: a generated title never replaces it.
func ExampleSession_Rename() {
	ctx := context.Background()
	home, _ := os.MkdirTemp("", "cairn-example-home-")
	project, _ := os.MkdirTemp("", "cairn-example-project-")
	defer os.RemoveAll(home)
	defer os.RemoveAll(project)
	store, _ := engine.Open(home)
	defer store.Close()
	ws, _ := store.Workspace(project)

	sess := ws.Create(engine.SessionOptions{})
	defer sess.Close()
	sess.Append(ctx, engine.Item{Type: engine.User, Text: "look at the deps"})
	sess.Rename(ctx, "dependency audit")
	took, _ := sess.SetGeneratedTitle(ctx, "Dependency review")
	fmt.Println(sess.Record().Title, sess.Record().TitleSource, took)
	// Output: dependency audit user false
}

// An agent runtime embeds the engine with the real disk and nothing else:
// it opens a store, runs a session whose tool writes a file, and undoes the
// write. The file tools keep each file's pre-image before they touch it, so
// the undo puts the file back as it was.
func ExampleSession_Undo() {
	ctx := context.Background()
	home, _ := os.MkdirTemp("", "cairn-example-home-")
	project, _ := os.MkdirTemp("", "cairn-example-project-")
	defer os.RemoveAll(home)
	defer os.RemoveAll(project)
	os.WriteFile(filepath.Join(project, "notes.txt"), []byte("first draft\n"), 0o644)

	store, err := engine.Open(home)
	if err != nil {
		panic(err)
	}
	defer store.Close()
	ws, err := store.Workspace(project)
	if err != nil {
		panic(err)
	}
	sess := ws.Create(engine.SessionOptions{})
	defer sess.Close()

	sess.Append(ctx, engine.Item{Type: engine.User, Text: "Rewrite the notes"})
	answer, err := sess.ToolWrite(ctx, "notes.txt", []byte("second draft\n"))
	if err != nil {
		panic(err)
	}
	if err := sess.EndTurn(ctx, engine.Turn{Model: "m"}); err != nil {
		panic(err)
	}
	now, _ := os.ReadFile(filepath.Join(project, "notes.txt"))
	rel := func(p string) string { r, _ := filepath.Rel(ws.Path(), p); return r }
	fmt.Printf("wrote %s, snapshot taken: %v, file: %q\n", rel(answer.Files[0]), answer.Snapshot != nil, now)

	undo, err := sess.Undo(ctx)
	if err != nil {
		panic(err)
	}
	now, _ = os.ReadFile(filepath.Join(project, "notes.txt"))
	fmt.Printf("undo restored %s, file: %q\n", rel(undo.Steps[0].Restored[0]), now)

	list, _ := sess.Snapshots(ctx)
	fmt.Printf("snapshots: %d, applied: %d\n", len(list.Snapshots), list.Cursor)
	// Output:
	// wrote notes.txt, snapshot taken: true, file: "second draft\n"
	// undo restored notes.txt, file: "first draft\n"
	// snapshots: 1, applied: 0
}
