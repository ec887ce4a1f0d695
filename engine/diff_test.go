package engine

import (
	"errors"
	"strings"
	"testing"
)

// changed is what Changes read, as "path: before -> after" with a
// missing side as <why> and an absent one as <none>.
func changed(e *rvEnv, ch *Changes) []string {
	e.t.Helper()
	side := func(c Content) string {
		switch {
		case !c.Exists:
			return "<none>"
		case c.Missing != "":
			return "<" + c.Missing + ">"
		}
		return string(c.Data)
	}
	var out []string
	for _, f := range ch.Files {
		out = append(out, strings.TrimPrefix(f.Path, e.ws.absPath("")+"/")+": "+side(f.Before)+" -> "+side(f.After))
	}
	return out
}

func wantChanged(t *testing.T, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("changes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Changes reads what one tool call changed, what a whole turn changed
// (its tool lines and every call under its prompt, each file from what
// the first found to what the last left), and with no item the newest
// recorded call. The content after a change, recorded by its hash, is read
// from a later record that kept it, or from the file still holding it;
// when neither has it, it says so.
func TestChanges(t *testing.T) {
	e := newRvEnv(t)
	e.hand("a.txt", "a0\n")
	e.prompt("before")
	e.write("", "early.txt", "not in the turn\n")
	p := e.prompt("change a and b")
	e.write("", "a.txt", "a1\n") // a tool line of the turn: it names the prompt
	c1 := e.call("write")
	e.write(c1.ID, "b.txt", "b1\n")
	e.result(c1)
	c2 := e.call("write")
	e.write(c2.ID, "a.txt", "a2\n")
	e.write(c2.ID, "tmp.txt", "made and removed in the turn\n")
	e.rm(c2.ID, "tmp.txt")
	e.result(c2)
	say := e.say("done")
	id := e.s.ID()

	wantChanged(t, changed(e, must(e.ws.Changes(e.ctx, id, c1.ID, 1<<20))(t)), "b.txt: <none> -> b1\n")
	// a.txt's "a1" after the first write is kept as the second's pre-image.
	turn := must(e.ws.Changes(e.ctx, id, p.ID, 1<<20))(t)
	if !turn.Turn || len(turn.Records) != 5 || strings.Join(turn.Tools, ",") != "write,write,write,write,rm" {
		t.Fatalf("turn: %+v", turn)
	}
	wantChanged(t, changed(e, turn), "a.txt: a0\n -> a2\n", "b.txt: <none> -> b1\n") // tmp.txt: as it was
	newest := must(e.ws.Changes(e.ctx, id, "", 1<<20))(t)
	if newest.Item != c2.ID || newest.Turn || len(newest.Records) != 1 {
		t.Fatalf("newest: %+v", newest)
	}
	wantChanged(t, changed(e, newest), "tmp.txt: made and removed in the turn\n -> <none>")
	wantChanged(t, changed(e, must(e.ws.Changes(e.ctx, id, c2.ID, 1<<20))(t)), "a.txt: a1\n -> a2\n")

	// New content over 16 KiB is recorded by its hash only: read from the
	// file while it holds it, then, changed by hand, no longer anywhere.
	big := strings.Repeat("big\n", 5000)
	c4 := e.call("write")
	e.write(c4.ID, "a.txt", big)
	if got := changed(e, must(e.ws.Changes(e.ctx, id, c4.ID, 1<<20))(t)); len(got) != 1 || got[0] != "a.txt: a2\n -> "+big {
		t.Fatalf("the file holds what the call left: %q", got)
	}
	e.hand("a.txt", "mine\n")
	wantChanged(t, changed(e, must(e.ws.Changes(e.ctx, id, c4.ID, 1<<20))(t)), "a.txt: a2\n -> <not kept>")
	// Over the limit.
	wantChanged(t, changed(e, must(e.ws.Changes(e.ctx, id, c1.ID, 2))(t)), "b.txt: <none> -> <too large>")

	// A call that changed nothing, an item of another kind, no such item.
	c3 := e.call("read")
	if ch := must(e.ws.Changes(e.ctx, id, c3.ID, 1<<20))(t); len(ch.Files) != 0 || len(ch.Records) != 0 {
		t.Fatalf("a call with no record: %+v", ch)
	}
	if _, err := e.ws.Changes(e.ctx, id, say.ID, 1<<20); !errors.Is(err, ErrBadInput) {
		t.Fatalf("an assistant item: %v", err)
	}
	if _, err := e.ws.Changes(e.ctx, id, "i-nonesuch", 1<<20); !errors.Is(err, ErrNotFound) {
		t.Fatalf("no such item: %v", err)
	}
}

// A file revert's preview reads, for each file it would change, what the
// file holds now and what the revert would give it.
func TestRevertPreviewContents(t *testing.T) {
	e := newRvEnv(t)
	e.hand("a.txt", "a0\n")
	p := e.prompt("change")
	e.write("", "a.txt", "a1\n")
	e.write("", "n.txt", "new\n")
	pre := must(e.s.PreviewRevert(e.ctx, p.ID, RevertFiles))(t)
	cs := must(pre.Files.Contents(e.ctx, 1<<20))(t)
	got := changed(e, &Changes{Files: cs})
	// Newest first, as the revert goes.
	wantChanged(t, got, "n.txt: new\n -> <none>", "a.txt: a1\n -> a0\n")
	res := must(e.s.Revert(e.ctx, p.ID, RevertFiles))(t)
	if cs, err := res.Files.Contents(e.ctx, 1<<20); cs != nil || err != nil {
		t.Fatalf("an applied revert's contents: %v, %v", cs, err)
	}
}
