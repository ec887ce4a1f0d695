//go:build !gcs

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRemoteGCSNotBuilt: a default build has no Google Cloud Storage.
// Adding a gs:// remote is refused with exit 2, says how to get a cairn
// that has it, and changes nothing; a gs remote already in remotes.json
// gives the same words wherever it is opened (sync, sessions --remote,
// the lease check of a session's open), and the rest of cairn works.
func TestRemoteGCSNotBuilt(t *testing.T) {
	e := newProcEnv(t)
	const how = "go install -tags gcs"
	conf := filepath.Join(e.home, "remotes.json")

	code, out, errs := e.run(t, "remote", "add", "team", "gs://team-bucket/cairn")
	if code != ExitUsage || !strings.Contains(errs, how) || !strings.Contains(errs, "Google Cloud Storage") {
		t.Fatalf("remote add gs:// with no remote set: exit %d, stderr %q, stdout %q", code, errs, out)
	}
	if _, err := os.Stat(conf); !os.IsNotExist(err) {
		t.Fatalf("remotes.json after a refused add: %v", err)
	}
	shared := "file://" + filepath.ToSlash(t.TempDir())
	e.mustRun(t, "remote", "add", "shared", shared)
	before, err := os.ReadFile(conf)
	if err != nil {
		t.Fatal(err)
	}
	code, out, errs = e.run(t, "--json", "remote", "add", "team", "gs://team-bucket")
	if code != ExitUsage || !strings.Contains(errs, how) || !strings.Contains(out, `"code":"bad_input"`) {
		t.Fatalf("remote add --json gs://: exit %d, stderr %q, stdout %q", code, errs, out)
	}
	if after, _ := os.ReadFile(conf); string(after) != string(before) {
		t.Fatalf("remotes.json changed by a refused add:\n%s\nthen\n%s", before, after)
	}

	// A gs remote written by a cairn built with it, as the default.
	gs := `{"v":1,"remotes":[{"name":"team","url":"gs://team-bucket/cairn"},{"name":"shared","url":"` + shared + `"}]}` + "\n"
	if err := os.WriteFile(conf, []byte(gs), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"sync"}, {"sync", "team"}, {"sessions", "--remote", "team"}} {
		code, out, errs := e.run(t, args...)
		if code != ExitUsage || !strings.Contains(errs, how) {
			t.Fatalf("cairn %v with a gs remote set: exit %d, stderr %q, stdout %q", args, code, errs, out)
		}
	}
	code, _, errs = e.run(t, "prompt", "--new", "hello")
	if code != 0 || !strings.Contains(errs, "remote team cannot be opened") || !strings.Contains(errs, how) {
		t.Fatalf("a session's open with a gs remote as the default: exit %d, stderr %q", code, errs)
	}
	if l := e.sessions(t); len(l) != 1 || l[0].Title != "hello" {
		t.Fatalf("sessions after the prompt: %+v", l)
	}
	e.mustRun(t, "sync", "shared")
	if got := e.mustRun(t, "remote", "list"); !strings.Contains(got, "gs://team-bucket/cairn") {
		t.Fatalf("remote list: %q", got)
	}
}
