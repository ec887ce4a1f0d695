package bgwork

import (
	"slices"
	"testing"

	"cairn/internal/vfs"
)

// A held shell job admitted without an id gets one from its line, each
// unique; it lists as a held shell until settled; SettleHeld settles only
// a live held shell job, once, and refuses other work.
func TestHeldShell(t *testing.T) {
	l, _ := openLedger(t, vfs.NewMem(), Options{})
	a := must(l.Admit(Admission{Type: TypeShell, Label: "make test", Background: true, Held: true}))(t)
	b := must(l.Admit(Admission{Type: TypeShell, Label: "make test", Background: true, Held: true}))(t)
	if a.Work == "" || a.Work == b.Work {
		t.Fatalf("held shell ids %q and %q: want two distinct ids", a.Work, b.Work)
	}
	must(l.Admit(Admission{ID: "local", Type: TypeShell, Background: true}))(t)
	if got := l.State().HeldShells(); len(got) != 2 || got[0].ID != a.Work || got[1].ID != b.Work {
		t.Fatalf("HeldShells = %+v, want %s and %s", got, a.Work, b.Work)
	}
	_, err := l.SettleHeld(a.Work, Result{})
	wantErr(t, err, ErrInvalid)
	_, err = l.SettleHeld("local", Result{Outcome: Failed})
	wantErr(t, err, ErrRefused)
	_, err = l.SettleHeld("nope", Result{Outcome: Failed})
	wantErr(t, err, ErrNotFound)
	if ok := must(l.SettleHeld(a.Work, Result{Outcome: Failed}))(t); !ok {
		t.Fatal("first SettleHeld: not settled")
	}
	if ok := must(l.SettleHeld(a.Work, Result{Outcome: Cancelled}))(t); ok {
		t.Fatal("second SettleHeld settled again")
	}
	if w, _ := l.Work(a.Work); w.Outcome != Failed {
		t.Fatalf("outcome %q, want the first told", w.Outcome)
	}
	if got := l.State().LiveWorks(); len(got) != 2 || got[0].ID != b.Work || got[1].ID != "local" {
		t.Fatalf("LiveWorks after a settle = %+v, want %s and local", got, b.Work)
	}
	if got := l.State().HeldShells(); len(got) != 1 || got[0].ID != b.Work {
		t.Fatalf("HeldShells after a settle = %+v", got)
	}
	if got := ShellIDs(l.State().Works()); !slices.Equal(got, []string{a.Work, b.Work, "local"}) {
		t.Fatalf("ShellIDs = %v", got)
	}
	checkFold(t, l)
}
