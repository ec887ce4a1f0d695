package diffview

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cairn/engine"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func text(s string) engine.Content {
	return engine.Content{Exists: true, Mode: "file", Size: int64(len(s)), Data: []byte(s)}
}

// files are the cases: a change in a tab-indented Go file, a file created,
// one deleted, one made executable, a binary one, one too large, one whose
// content is gone, content holding an escape sequence, and a name holding
// a space (shown quoted, as the tool lines take it back).
func files() []File {
	goBefore := "package main\n\nfunc main() {\n\tprintln(\"a\")\n}\n"
	goAfter := "package main\n\nfunc main() {\n\tprintln(\"b\")\n\tprintln(\"c\")\n}\n"
	exec := text("#!/bin/sh\necho hi\n")
	exec.Mode = "exec"
	return []File{
		Of("main.go", engine.FileChange{Before: text(goBefore), After: text(goAfter)}),
		Of("new.txt", engine.FileChange{After: text("one\ntwo")}),
		Of("old.txt", engine.FileChange{Before: text("gone\n")}),
		Of("run.sh", engine.FileChange{Before: text("#!/bin/sh\necho hi\n"), After: exec}),
		Of("image.png", engine.FileChange{Before: text("\x89PNG\x00\x01"), After: text("\x89PNG\x00\x02\x03")}),
		Of("big.log", engine.FileChange{Before: text("x"), After: engine.Content{Exists: true, Size: 5 << 20, Missing: "too large"}}),
		Of("lost.txt", engine.FileChange{Before: text("x"), After: engine.Content{Exists: true, Size: 3, Missing: "not kept"}}),
		Of("evil.txt", engine.FileChange{Before: text("safe\n"), After: text("\x1b]0;owned\x07\x1b[2J\n")}),
		Of("notes.txt hello", engine.FileChange{After: text("line one\n")}),
	}
}

// The counts each file gets.
func TestOfCounts(t *testing.T) {
	want := map[string][3]any{ // added, removed, why no diff
		"main.go":         {2, 1, ""},
		"new.txt":         {2, 0, ""},
		"old.txt":         {0, 1, ""},
		"run.sh":          {0, 0, ""},
		"image.png":       {0, 0, "binary, 7 bytes, was 6 bytes"},
		"big.log":         {0, 0, "too large to show, 5242880 bytes"},
		"lost.txt":        {0, 0, "its content is no longer kept, 3 bytes"},
		"evil.txt":        {1, 1, ""},
		"notes.txt hello": {1, 0, ""},
	}
	for _, f := range files() {
		w := want[f.Path]
		if f.Added != w[0] || f.Removed != w[1] || f.NoDiff != w[2] {
			t.Errorf("%s: +%d -%d %q, want %v", f.Path, f.Added, f.Removed, f.NoDiff, w)
		}
	}
	if f := files()[3]; f.Mode != "file -> exec" {
		t.Errorf("run.sh mode %q", f.Mode)
	}
}

// The summary and the diff, plain and coloured, as golden files (go test
// ./cli/diffview -update rewrites them). No escape sequence but the
// colours reaches the output.
func TestWriteGolden(t *testing.T) {
	for _, color := range []bool{false, true} {
		var b strings.Builder
		WriteSummary(&b, files(), color)
		b.WriteString("\n")
		WriteDiff(&b, files(), color)
		name := "diff.golden"
		if color {
			name = "diff_color.golden"
		}
		golden := filepath.Join("testdata", name)
		if *update {
			if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if b.String() != string(want) {
			t.Fatalf("%s differs (go test -update rewrites it):\n%s", name, b.String())
		}
		plain := b.String()
		for _, c := range []string{bold, red, green, cyan, reset} {
			plain = strings.ReplaceAll(plain, c, "")
		}
		if strings.ContainsAny(plain, "\x1b\x07") {
			t.Fatalf("%s: an escape sequence of the files reached the output: %q", name, plain)
		}
		if !color && plain != b.String() {
			t.Fatalf("colour without asking: %q", b.String())
		}
	}
}
