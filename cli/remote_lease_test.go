package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"cairn/internal/s3test"
)

// TestProcessLeaseAcrossMachines: with a remote set, every open of a
// session checks its lease there. Two state folders stand for two
// machines sharing a remote: while one has the session open, a write or a
// resume on the other exits 4 naming the owner machine and the lease's
// age; reads still work; once the owner leaves, the other machine writes.
func TestProcessLeaseAcrossMachines(t *testing.T) {
	t.Run("file", func(t *testing.T) { leaseAcrossMachines(t, "file://"+filepath.ToSlash(t.TempDir())) })
	t.Run("s3", func(t *testing.T) { leaseAcrossMachines(t, s3test.Own(t).URL()) })
}

func leaseAcrossMachines(t *testing.T, url string) {
	a := newProcEnv(t)
	b := newProcEnv(t)
	b.dir = a.dir // the same directory on both machines
	a.mustRun(t, "remote", "add", "origin", url)
	b.mustRun(t, "remote", "add", "origin", url)
	a.mustRun(t, "prompt", "--new", "leased")
	id := a.sessions(t)[0].ID
	var rep struct {
		Machine string `json:"machine"`
	}
	if err := json.Unmarshal([]byte(a.mustRun(t, "sync", "--json")), &rep); err != nil || rep.Machine == "" {
		t.Fatalf("A's sync --json: %+v, %v", rep, err)
	}
	b.mustRun(t, "sync")
	if l := b.sessions(t); len(l) != 1 || l[0].ID != id {
		t.Fatalf("B's sessions after its pull: %+v", l)
	}

	// A opens the session and holds it.
	owner := a.command("-r", id)
	stdin, err := owner.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var ownerErr bytes.Buffer
	owner.Stderr = &ownerErr
	lines := startLines(t, owner)
	waitLine(t, lines, `Resumed "leased"`)

	// Every open on B is refused with exit 4, naming A's machine and how
	// long ago its lease was renewed.
	named := regexp.MustCompile(`open on machine ` + regexp.QuoteMeta(rep.Machine) + `\b.*renewed \d+s ago`)
	for _, args := range [][]string{
		{"prompt", "--session", id, "x"},
		{"append", "--session", id, "--type", "assistant", "x"},
		{"-r", id},
	} {
		code, out, errs := b.run(t, args...)
		if code != ExitBusy || !named.MatchString(errs) {
			t.Fatalf("cairn %v on B while A holds the lease: exit %d, stderr %q, stdout %q", args, code, errs, out)
		}
	}
	code, out, _ := b.run(t, "prompt", "--json", "--session", id, "x")
	if code != ExitBusy || !strings.Contains(out, `"code":"busy"`) || !strings.Contains(out, rep.Machine) {
		t.Fatalf("--json on B while A holds the lease: exit %d, %q", code, out)
	}
	// Reads take no lease.
	if out := b.mustRun(t, "transcript", id); !strings.Contains(out, "leased") {
		t.Fatalf("B's transcript while A holds the lease: %q", out)
	}

	// A leaves (releasing the lease) and pushes its turn; B pulls it and
	// writes.
	io.WriteString(stdin, "from A\n")
	stdin.Close()
	waitLine(t, lines, "cairn --resume "+id)
	if err := waitProcess(t, owner); err != nil {
		t.Fatalf("owner: %v: %s", err, ownerErr.String())
	}
	a.mustRun(t, "sync")
	b.mustRun(t, "sync")
	b.mustRun(t, "prompt", "--session", id, "from B")
	if l := b.sessions(t); len(l) != 1 || l[0].Items != 3 {
		t.Fatalf("B's sessions after A left: %+v", l)
	}
}
