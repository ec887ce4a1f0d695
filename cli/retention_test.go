package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"cairn/engine"
)

// retentionEnv is a state folder with n closed sessions in one directory
// and a runner of the cairn command against it.
func retentionEnv(t *testing.T, n int) (ids []string, run func(args ...string) (int, string, string)) {
	ids, run, _ = retentionEnvArgs(t, n)
	return ids, run
}

// retentionEnvArgs is retentionEnv, with the arguments that name its
// state folder and directory.
func retentionEnvArgs(t *testing.T, n int) (ids []string, run func(args ...string) (int, string, string), base []string) {
	t.Helper()
	ctx := context.Background()
	home, dir, st, ws := openTestWorkspace(t)
	for i := range n {
		s := ws.Create(engine.SessionOptions{})
		if _, err := s.Append(ctx, engine.Item{Type: engine.User, Text: "task " + string(rune('a'+i))}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.PutOutput(ctx, "grep", strings.NewReader("out")); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.ID())
	}
	st.Close()
	base = []string{"--home", home, "-C", dir}
	return ids, func(args ...string) (int, string, string) {
		var o, e bytes.Buffer
		code := Main(ctx, append(base[:len(base):len(base)], args...), strings.NewReader(""), &o, &e)
		return code, o.String(), e.String()
	}, base
}

// TestRetentionDryRunEqualsRun: for trim and forget, text and JSON, the
// dry run prints exactly what the real run then prints, and the run did
// it.
func TestRetentionDryRunEqualsRun(t *testing.T) {
	for _, action := range []string{"trim", "forget"} {
		for _, json := range []bool{false, true} {
			_, run := retentionEnv(t, 4)
			args := []string{"storage", action, "--keep-last", "2"}
			if json {
				args = append([]string{"--json"}, args...)
			}
			code, dry, e := run(append(args, "--dry-run")...)
			if code != 0 {
				t.Fatalf("%s dry run: %d %s", action, code, e)
			}
			code, real, e := run(args...)
			if code != 0 || real != dry {
				t.Fatalf("%s: dry run printed\n%s\nreal run (%d %s)\n%s", action, dry, code, e, real)
			}
			// The run did what it said: a second dry run finds nothing left.
			_, again, _ := run(append(args, "--dry-run")...)
			word, n := "  "+action, 2
			if json {
				word, n = `"remove":[{`, 1
			}
			if strings.Count(dry, word) != n || strings.Contains(again, word) {
				t.Fatalf("%s: first plan\n%s\nsecond plan\n%s", action, dry, again)
			}
		}
	}
}

// TestRetentionJSONShape: --json is one array of groups, each with its
// directory, keep (session, activity, reasons) and remove (session,
// activity).
func TestRetentionJSONShape(t *testing.T) {
	ids, run := retentionEnv(t, 2)
	code, o, e := run("--json", "storage", "forget", "--dry-run", "--keep-last", "1")
	if code != 0 {
		t.Fatalf("%d %s", code, e)
	}
	var got []struct {
		Directory string                       `json:"directory"`
		Keep      []map[string]json.RawMessage `json:"keep"`
		Remove    []map[string]json.RawMessage `json:"remove"`
	}
	if err := json.Unmarshal([]byte(o), &got); err != nil {
		t.Fatalf("%v: %s", err, o)
	}
	if len(got) != 1 || len(got[0].Keep) != 1 || len(got[0].Remove) != 1 ||
		string(got[0].Keep[0]["session"]) != `"`+ids[1]+`"` || string(got[0].Keep[0]["reasons"]) != `["last"]` ||
		len(got[0].Remove[0]) != 2 || got[0].Remove[0]["activity"] == nil {
		t.Fatalf("plan %s", o)
	}
}

// TestPinRestoreCommands: a pinned session is refused by trim (exit 3)
// and kept by a policy; forget and restore bring a session back; bad
// durations are usage errors that change nothing.
func TestPinRestoreCommands(t *testing.T) {
	ids, run := retentionEnv(t, 2)
	if code, _, e := run("storage", "pin", ids[0]); code != 0 {
		t.Fatalf("pin: %d %s", code, e)
	}
	if code, _, e := run("storage", "trim", ids[0]); code != ExitRefused || !strings.Contains(e, "pinned") {
		t.Fatalf("trim of a pinned session: %d %s", code, e)
	}
	if code, o, _ := run("storage", "forget", "--keep-last", "1", "--dry-run"); code != 0 || !strings.Contains(o, "(pinned)") {
		t.Fatalf("policy over a pinned session: %d %s", code, o)
	}
	if code, _, e := run("storage", "forget", "--keep-within", "2w"); code != ExitUsage || !strings.Contains(e, "write 7d") {
		t.Fatalf("2w: %d %s", code, e)
	}
	if code, _, e := run("storage", "forget", ids[1][:8]); code != 0 {
		t.Fatalf("forget: %d %s", code, e)
	}
	if code, o, _ := run("--json", "sessions"); code != 0 || strings.Contains(o, ids[1]) {
		t.Fatalf("forgotten session listed: %s", o)
	}
	if code, _, e := run("storage", "restore", ids[1]); code != 0 {
		t.Fatalf("restore: %d %s", code, e)
	}
	if code, o, _ := run("storage", "sessions"); code != 0 || !strings.Contains(o, ids[1]) || !strings.Contains(o, "pinned") {
		t.Fatalf("sessions after restore: %s", o)
	}
	// show names the tier of a trimmed session and the pin.
	if code, _, e := run("storage", "trim", ids[1]); code != 0 {
		t.Fatalf("trim: %d %s", code, e)
	}
	if _, o, _ := run("show", ids[1]); !strings.Contains(o, "tier     transcript\n") {
		t.Fatalf("show after trim: %s", o)
	}
	if _, o, _ := run("show", ids[0]); !strings.Contains(o, "tier     full, pinned\n") {
		t.Fatalf("show of a pinned session: %s", o)
	}
	if code, _, e := run("storage", "restore", ids[1]); code != ExitFailed {
		t.Fatalf("restore twice: %d %s", code, e)
	}
	if code, o, e := run("--json", "storage", "prune"); code != 0 || !strings.Contains(o, `"objects":0`) {
		t.Fatalf("prune: %d %s %s", code, o, e)
	}
	// On a pipe there is no progress bar: the answer is the one line.
	if code, o, e := run("storage", "prune"); code != 0 || strings.ContainsAny(o+e, "\r\x1b") || strings.Count(o, "\n") != 1 {
		t.Fatalf("prune on a pipe: %d %q %q", code, o, e)
	}
}

// TestRetentionZeroFlagsSayWhy: --keep flags that are all 0 set no rule;
// the plan says so rather than that no flag was given, and keeps every
// session.
func TestRetentionZeroFlagsSayWhy(t *testing.T) {
	ids, run := retentionEnv(t, 2)
	code, out, e := run("storage", "forget", "--keep-last", "0", "--keep-within", "0d")
	if code != 0 || strings.Contains(out, "no --keep flag was given") || !strings.Contains(out, "are all 0") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, e)
	}
	for _, id := range ids {
		if !strings.Contains(out, "keep    "+id) {
			t.Errorf("%s not kept: %q", id, out)
		}
	}
}

// TestKeepCountTakesMinusOne: every --keep-* count flag takes -1 (and
// restic's "unlimited") as its next argument, as the help writes it, with
// the plan of --flag=-1 (--keep-last -1 keeps every session); another
// negative number is bad usage that changes nothing.
func TestKeepCountTakesMinusOne(t *testing.T) {
	ids, run := retentionEnv(t, 3)
	for _, flag := range []string{"--keep-last", "--keep-hourly", "--keep-daily", "--keep-weekly", "--keep-monthly", "--keep-yearly"} {
		code, want, e := run("--json", "storage", "forget", "--dry-run", flag+"=-1")
		if code != 0 {
			t.Fatalf("%s=-1: exit %d %s", flag, code, e)
		}
		for _, val := range []string{"-1", "unlimited"} {
			code, o, e := run("--json", "storage", "forget", "--dry-run", flag, val)
			if code != 0 || o != want {
				t.Fatalf("%s %s: exit %d %s\n%s\nwant\n%s", flag, val, code, e, o, want)
			}
		}
		if code, _, e := run("storage", "forget", flag, "-2"); code != ExitUsage || !strings.Contains(e, `"-2" is not a count`) {
			t.Fatalf("%s -2: exit %d %s", flag, code, e)
		}
	}
	_, o, _ := run("--json", "storage", "forget", "--dry-run", "--keep-last", "-1")
	for _, id := range ids {
		if !strings.Contains(o, `"session":"`+id+`"`) || strings.Contains(o, `"remove":[{`) {
			t.Fatalf("--keep-last -1 does not keep %s: %s", id, o)
		}
	}
	// A value is still required: the next flag is not taken for it.
	if code, _, e := run("storage", "forget", "--keep-last", "--dry-run"); code != ExitUsage {
		t.Fatalf("--keep-last --dry-run: exit %d %s", code, e)
	}
	if code, o, _ := run("--json", "sessions"); code != 0 || strings.Count(o, `"id"`) != len(ids) {
		t.Fatalf("the refused runs changed the sessions: %s", o)
	}
}
