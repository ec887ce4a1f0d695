package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The list agrees with what opens, both ways: a session whose
// conversation cannot be read is not listed (nor first, nor taken by a
// command that means the newest) and is named on stderr; one whose record
// is damaged is rebuilt, listed, and found by its prefix and title.
func TestSessionsListWhatOpens(t *testing.T) {
	ids, run := retentionEnv(t, 3) // "task a", "task b", "task c", newest last
	_, o, _ := run("--json", "where")
	var where struct {
		Folder string `json:"folder"`
	}
	if err := json.Unmarshal([]byte(o), &where); err != nil {
		t.Fatalf("where: %v %s", err, o)
	}
	sessions := filepath.Join(where.Folder, "sessions")
	if err := os.WriteFile(filepath.Join(sessions, ids[2]+".items.jsonl"), []byte("garbage\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sessions, ids[0]+".json"), []byte(`{"v":1,"title":`), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, e := run("sessions")
	if code != 0 || strings.Contains(out, ids[2]) || !strings.Contains(out, ids[0]) || !strings.Contains(out, ids[1]) ||
		!strings.Contains(e, ids[2]) || !strings.Contains(e, "cannot be read") {
		t.Fatalf("sessions: %d\n%s\n%s", code, out, e)
	}
	if !strings.HasPrefix(out, ids[1]) {
		t.Fatalf("the newest session that opens is not first:\n%s", out)
	}
	if code, out, e := run("--json", "show", ids[0][:8]); code != 0 || !strings.Contains(out, ids[0]) {
		t.Fatalf("show by prefix of the rebuilt session: %d %s %s", code, out, e)
	}
	if code, out, e := run("--json", "show", "task a"); code != 0 || !strings.Contains(out, ids[0]) {
		t.Fatalf("show by title of the rebuilt session: %d %s %s", code, out, e)
	}
	// Without --session, a plumbing call means the newest session that opens.
	if code, out, e := run("--json", "prompt", "more"); code != 0 || !strings.Contains(out, ids[1]) {
		t.Fatalf("prompt to the newest: %d %s %s", code, out, e)
	}
	if code, _, e := run("sessions", "--all"); code != 0 || !strings.Contains(e, ids[2]) {
		t.Fatalf("sessions --all does not name the damaged session: %d %s", code, e)
	}
}
