package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"cairn/engine"
)

// exampleWorkspace is a state folder and a project folder for an example,
// and a function that removes both.
func exampleWorkspace() (*engine.Workspace, func()) {
	home, _ := os.MkdirTemp("", "cairn-example-home-")
	project, _ := os.MkdirTemp("", "cairn-example-project-")
	store, err := engine.Open(home)
	if err != nil {
		panic(err)
	}
	ws, err := store.Workspace(project)
	if err != nil {
		panic(err)
	}
	return ws, func() { store.Close(); os.RemoveAll(home); os.RemoveAll(project) }
}

// A shell line runs recorded: what it changes is kept, so a file revert to
// the prompt before it takes its changes back together with the file
// tools'. Files no record names (the user's own) stay as they are.
func ExampleSession_Exec() {
	ctx := context.Background()
	ws, done := exampleWorkspace()
	defer done()
	file := func(name string) string {
		b, err := os.ReadFile(filepath.Join(ws.Path(), name))
		if err != nil {
			return "(none)"
		}
		return string(b)
	}
	os.WriteFile(filepath.Join(ws.Path(), "mine.txt"), []byte("my own\n"), 0o644)

	sess := ws.Create(engine.SessionOptions{})
	defer sess.Close()
	prompt, _ := sess.Append(ctx, engine.Item{Type: engine.User, Text: "Generate the config"})
	sess.ToolWrite(ctx, "a.txt", []byte("from a file tool\n"))
	ans, err := sess.Exec(ctx, "echo generated > config.ini", engine.ExecOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Println("exit", ans.ExitCode, "recorded", ans.Snapshot != nil)

	preview, _ := sess.PreviewRevert(ctx, prompt.ID, engine.RevertFiles)
	fmt.Println("preview deletes", preview.Files.Delete)
	if _, err := sess.Revert(ctx, prompt.ID, engine.RevertFiles); err != nil {
		panic(err)
	}
	fmt.Println(file("a.txt"), file("config.ini"), file("mine.txt"))
	// Output:
	// exit 0 recorded true
	// preview deletes 2
	// (none) (none) my own
}

// A patch that edits several files is one change: one undo takes all of it
// back.
func ExampleSession_ToolPatch() {
	ctx := context.Background()
	ws, done := exampleWorkspace()
	defer done()
	os.WriteFile(filepath.Join(ws.Path(), "a.txt"), []byte("one\n"), 0o644)

	sess := ws.Create(engine.SessionOptions{})
	defer sess.Close()
	patch := "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+two\n*** Add File: b.txt\n+bee\n*** End Patch\n"
	ans, err := sess.ToolPatch(ctx, []byte(patch))
	if err != nil {
		panic(err)
	}
	fmt.Println("files", len(ans.Files))
	sess.Undo(ctx)
	a, _ := os.ReadFile(filepath.Join(ws.Path(), "a.txt"))
	_, err = os.Stat(filepath.Join(ws.Path(), "b.txt"))
	fmt.Printf("%q %v\n", a, os.IsNotExist(err))
	// Output:
	// files 2
	// "one\n" true
}

// Another agent's session is imported by its own id: a second import of the
// same source adds nothing.
func ExampleWorkspace_Import() {
	ctx := context.Background()
	ws, done := exampleWorkspace()
	defer done()
	at := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
	src := &engine.ImportSource{Agent: "claude-code", SourceID: "11111111-2222-4333-8444-555555555555", Dir: ws.Path(),
		Items: []engine.ImportItem{
			{Key: "u1", Type: engine.User, At: at, Text: "list the files"},
			{Key: "a1", ParentKey: "u1", Type: engine.ToolCall, At: at.Add(time.Second), Tool: "Bash", Text: `{"command":"ls"}`},
			{Key: "r1", ParentKey: "a1", Type: engine.ToolResult, At: at.Add(2 * time.Second), CallKey: "a1", Text: "a.txt"},
		}}
	res, _ := ws.Import(ctx, src)
	fmt.Println(res.Created, res.Items, res.Session == engine.ImportSessionID("claude-code", src.SourceID))
	again, _ := ws.Import(ctx, src)
	fmt.Println(again.Items, again.Present)
	// Output:
	// true 3 true
	// 0 3
}
