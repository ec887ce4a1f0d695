package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportedRealTranscriptResumes: a real Claude Code transcript
// (testdata/import/claude-code/short.jsonl), its working directory made
// this test's folder, imports through the command and resumes in the REPL
// with every item it made; a second import adds nothing.
func TestImportedRealTranscriptResumes(t *testing.T) {
	b, err := os.ReadFile("../testdata/import/claude-code/short.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	src := filepath.Join(t.TempDir(), "55604662-cf2a-4331-851a-ec234028f8ca.jsonl")
	if err := os.WriteFile(src, bytes.ReplaceAll(b, []byte("/home/marco/projects/spotter"), []byte(ws)), 0o600); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	run := func(stdin string, args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := Main(context.Background(), append([]string{"--home", home, "-C", ws}, args...), strings.NewReader(stdin), &out, &errb); code != 0 {
			t.Fatalf("cairn %v: exit %d: %s", args, code, errb.String())
		}
		return out.String()
	}
	if out := run("", "import", "claude-code", src); !strings.Contains(out, "imported 9 items") {
		t.Fatalf("import: %s", out)
	}
	if out := run("", "-r", "mix phx.server doesnt seem to start"); !strings.Contains(out, `Resumed "mix phx.server doesnt seem to start" (9 items).`) {
		t.Fatalf("resume: %s", out)
	}
	if out := run("", "import", "claude-code", src); !strings.Contains(out, "0 new sessions, 0 grown, 1 unchanged") {
		t.Fatalf("second import: %s", out)
	}
}
