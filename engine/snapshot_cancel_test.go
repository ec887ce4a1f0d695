package engine

import (
	"context"
	"errors"
	"testing"

	"cairn/engine/internal/snapshot"
	"cairn/internal/vfs"
)

// TestUncancelledUndoKeepsItsChange: an undo (or restore-to) whose line is
// written but whose every file write fails cancels itself with a redo line;
// when that line cannot be written either, the cancellation is owed and
// goes before the next line. A change made next must not end the "undone"
// branch, which holds the only record of a change the files still hold:
// undoing everything gives back the initial files.
func TestUncancelledUndoKeepsItsChange(t *testing.T) {
	for _, action := range []string{snapshot.ActionUndo, snapshot.ActionRestore} {
		t.Run(action, func(t *testing.T) {
			ctx := context.Background()
			mem, fa, _, ws := faultEnv(t, "")
			if err := vfs.WriteFileAtomic(mem, "b.txt", []byte("one\n")); err != nil {
				t.Fatal(err)
			}
			s := ws.Create(SessionOptions{})
			defer func() { s.Close() }()
			ans := must(s.ToolWrite(ctx, "b.txt", []byte("two\n")))(t)

			// The step's line is written; b.txt cannot be put back; its
			// cancelling redo line cannot be written.
			fa.Inject(vfs.Rule{Op: vfs.OpRename, Path: "b.txt"})
			fa.Inject(vfs.Rule{Op: vfs.OpWrite, Path: "workspaces/*/sessions/*.changes.jsonl", Skip: 1, Count: 1})
			var err error
			if action == snapshot.ActionUndo {
				_, err = s.Undo(ctx)
			} else {
				_, err = s.RestoreTo(ctx, *ans.Snapshot)
			}
			if err == nil {
				t.Fatalf("%s with every write failing: no error", action)
			}
			fa.Reset()
			if b, _ := vfs.ReadFile(mem, "b.txt"); string(b) != "two\n" {
				t.Fatalf("b.txt after the failed %s: %q", action, b)
			}
			owner := must(s.Snapshots(ctx))(t)
			reader := must(ws.Snapshots(ctx, s.ID()))(t)
			if propList(owner) != propList(reader) {
				t.Fatalf("owner %s, reader %s", propList(owner), propList(reader))
			}

			must(s.ToolWrite(ctx, "c.txt", []byte("new\n")))(t)
			if l := must(s.Snapshots(ctx))(t); l.Cursor != 2 || len(l.Snapshots) != 2 {
				t.Fatalf("after the next change: %s, want both changes applied", propList(l))
			}
			for n := 0; ; n++ {
				if _, err := s.Undo(ctx); err != nil {
					if !errors.Is(err, ErrRefused) {
						t.Fatal(err)
					}
					break
				}
				if n > 10 {
					t.Fatal("undo never ends")
				}
			}
			if b, _ := vfs.ReadFile(mem, "b.txt"); string(b) != "one\n" {
				t.Fatalf("b.txt after undoing everything: %q, want %q", b, "one\n")
			}
			if _, err := vfs.ReadFile(mem, "c.txt"); !vfs.IsNotExist(err) {
				t.Fatalf("c.txt after undoing everything: %v", err)
			}
		})
	}
}

// TestOwedAbortSurvivesRefold: a change whose tool failed before its
// write, and whose abort line could not be written, is out of the stack
// (its undone branch back) while the abort is owed. A later failed write
// reads the stack back from the journal; that must not bring the change
// back and lose the branch: the owner lists what a reader lists, and the
// undone snapshot can still be redone.
func TestOwedAbortSurvivesRefold(t *testing.T) {
	ctx := context.Background()
	mem, fa, _, ws := faultEnv(t, "")
	if err := vfs.WriteFileAtomic(mem, "b.txt", []byte("one\n")); err != nil {
		t.Fatal(err)
	}
	s := ws.Create(SessionOptions{})
	defer func() { s.Close() }()
	must(s.ToolWrite(ctx, "b.txt", []byte("two\n")))(t)
	must(s.Undo(ctx))(t)

	// The change line is written, the new content cannot be staged, the
	// abort line cannot be written.
	fa.Inject(vfs.Rule{Op: vfs.OpWrite, Path: ".a.txt.*" + vfs.TempSuffix, Count: 1})
	fa.Inject(vfs.Rule{Op: vfs.OpWrite, Path: "workspaces/*/sessions/*.changes.jsonl", Skip: 1, Count: 1})
	if _, err := s.ToolWrite(ctx, "a.txt", []byte("new\n")); err == nil {
		t.Fatal("write with its staging failing: no error")
	}
	fa.Reset()
	// The redo's line cannot be written: the stack is read back.
	fa.Inject(vfs.Rule{Op: vfs.OpOpen, Path: "workspaces/*/sessions/*.changes.jsonl", Count: 1})
	if _, err := s.Redo(ctx); err == nil {
		t.Fatal("redo with the journal failing: no error")
	}
	fa.Reset()
	owner := must(s.Snapshots(ctx))(t)
	reader := must(ws.Snapshots(ctx, s.ID()))(t)
	if propList(owner) != propList(reader) || owner.Cursor != 0 || len(owner.Snapshots) != 1 {
		t.Fatalf("owner %s, reader %s: want the undone write in both", propList(owner), propList(reader))
	}
	must(s.Redo(ctx))(t)
	if b, _ := vfs.ReadFile(mem, "b.txt"); string(b) != "two\n" {
		t.Fatalf("b.txt after redo: %q", b)
	}
}

// TestOwedAbortsKeptInOrder: a change whose abort line is owed, then a
// change whose line and abort line both cannot be written: both aborts are
// owed, and the next line written goes after them, oldest first, so neither
// change comes back as made in what a reader (or the next owner) folds.
func TestOwedAbortsKeptInOrder(t *testing.T) {
	ctx := context.Background()
	mem, fa, _, ws := faultEnv(t, "")
	s := ws.Create(SessionOptions{})
	defer func() { s.Close() }()
	must(s.ToolWrite(ctx, "b.txt", []byte("one\n")))(t)
	// The change line reaches the journal, the new content cannot be
	// staged, the abort line cannot be written: its abort is owed.
	fa.Inject(vfs.Rule{Op: vfs.OpWrite, Path: ".a1.txt.*" + vfs.TempSuffix, Count: 1})
	fa.Inject(vfs.Rule{Op: vfs.OpWrite, Path: "workspaces/*/sessions/*.changes.jsonl", Skip: 1, Count: 1})
	if _, err := s.ToolWrite(ctx, "a1.txt", []byte("new\n")); err == nil {
		t.Fatal("write with its staging failing: no error")
	}
	fa.Reset()
	// Neither the next change line nor its abort can be written: the new
	// file is made without a snapshot, and its abort is owed too.
	fa.Inject(vfs.Rule{Op: vfs.OpWrite, Path: "workspaces/*/sessions/*.changes.jsonl"})
	must(s.ToolWrite(ctx, "a2.txt", []byte("new\n")))(t)
	fa.Reset()
	must(s.ToolWrite(ctx, "c.txt", []byte("three\n")))(t)
	owner := must(s.Snapshots(ctx))(t)
	reader := must(ws.Snapshots(ctx, s.ID()))(t)
	if propList(owner) != propList(reader) || len(reader.Snapshots) != 2 {
		t.Fatalf("owner %s, reader %s: want the two writes that have snapshots in both", propList(owner), propList(reader))
	}
	if _, err := mem.Lstat("a1.txt"); !vfs.IsNotExist(err) {
		t.Fatalf("a1.txt exists after its tool failed: %v", err)
	}
}
