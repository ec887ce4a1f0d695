package bgwork

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"cairn/engine/ids"
	"cairn/internal/vfs"
)

var wordID = regexp.MustCompile(`^[a-z]+-[a-z]+-[a-z]+(-[0-9]+)?$`)

// TestWorkflowIDs: a workflow gets a word-list id; ids collide into
// numeric suffixes within 64 characters; a run keeps its id across pause,
// resume and the journal's history.
func TestWorkflowIDs(t *testing.T) {
	m := vfs.NewMem()
	// The same seed draws the same words: collisions on purpose.
	seed := func() *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }
	l, _ := openLedger(t, m, Options{Rand: seed()})
	first := must(l.Admit(Admission{Type: TypeWorkflow, Label: "nightly"}))(t).Work
	if !wordID.MatchString(first) || !ids.Valid(first) {
		t.Fatalf("workflow id %q", first)
	}
	l.opt.Rand = seed()
	second := must(l.Admit(Admission{Type: TypeWorkflow}))(t).Work
	l.opt.Rand = seed()
	third := must(l.Admit(Admission{Type: TypeWorkflow}))(t).Work
	if second != first+"-2" || third != first+"-3" {
		t.Fatalf("collisions gave %q %q after %q", second, third, first)
	}
	must0(t, l.Pause(first))
	if w, _ := l.State().Work(first); w.State != StatePaused || w.Live() {
		t.Fatalf("paused: %+v", w)
	}
	rec := must(l.Continue(first, "i-resume", true))(t)
	if rec.Work != first {
		t.Fatalf("resume changed the id to %q", rec.Work)
	}
	must(l.Settle(first, Result{}))(t)
	must0(t, l.Pause(second))
	l.Close()
	st := must(Read(m, ledgerName))(t)
	w, ok := st.Work(first)
	if !ok || w.Type != TypeWorkflow || len(w.Calls) != 2 || w.Label != "nightly" {
		t.Fatalf("history: %+v", w)
	}
	// A paused workflow cancels at once; only a paused one resumes.
	l, _ = openLedger(t, m, Options{})
	if w, _ := l.State().Work(second); w.State != StatePaused {
		t.Fatalf("a paused workflow after a reopen: %+v", w)
	}
	if w := must(l.Cancel(second))(t); w.State != StateSettled || w.Outcome != Cancelled {
		t.Fatalf("cancel while paused: %+v", w)
	}
	_, err := l.Continue(third, "i-x", false) // interrupted by the reopen
	wantErr(t, err, ErrRefused)
	wantErr(t, l.Pause("nobody"), ErrNotFound)

	// Suffixes stay within 64 characters, whatever the base.
	taken := map[string]bool{}
	r := seed()
	for range 2000 {
		id := WorkflowID(r, func(s string) bool { return taken[s] })
		if taken[id] || len(id) > ids.MaxLen || !wordID.MatchString(id) {
			t.Fatalf("id %q", id)
		}
		taken[id] = true
	}
	long := strings.Repeat("a", 60)
	full := map[string]bool{long: true}
	if got := ids.Unique(long, func(s string) bool { return full[s] }); len(got) > ids.MaxLen || !strings.HasSuffix(got, "-2") {
		t.Fatalf("%q", got)
	}
}
