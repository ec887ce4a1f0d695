package overlap

import (
	"io/fs"
	"strings"
	"testing"

	"cairn/engine/internal/changes"
	"cairn/engine/internal/fstate"
	"cairn/engine/internal/scope"
	"cairn/objects"
)

func TestScopeIntersects(t *testing.T) {
	ws := Scope{Workspace: true}
	for _, c := range []struct {
		a, b Scope
		want bool
	}{
		{ws, ws, true},
		{ws, Scope{Paths: []string{"x"}}, true},
		{ws, Scope{}, false}, // a shell line whose writes all fell outside
		{Scope{Paths: []string{"a"}}, Scope{Paths: []string{"a/b/c"}}, true},
		{Scope{Paths: []string{"a/b"}}, Scope{Paths: []string{"a"}}, true},
		{Scope{Paths: []string{"a"}}, Scope{Paths: []string{"ab"}}, false},
		{Scope{Paths: []string{"a/1", "b"}}, Scope{Paths: []string{"c", "a/2"}}, false},
		{Scope{Paths: []string{"a/1", "b"}}, Scope{Paths: []string{"c", "b/x"}}, true},
	} {
		if got := c.a.Intersects(c.b); got != c.want || c.b.Intersects(c.a) != c.want {
			t.Errorf("%+v meets %+v: %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// TestJoin: a call joins the running calls its scope meets, alone or in a
// unit, and a unit that still runs through any of its calls, ended ones
// included; calls of disjoint paths stay alone; joining two makes one.
func TestJoin(t *testing.T) {
	n := 0
	id := func() string { n++; return "u" + string(rune('0'+n)) }
	p := func(ps ...string) Scope { return Scope{Paths: ps} }
	ws := Scope{Workspace: true}

	if j := Join(nil, ws, id); j.Unit != "" {
		t.Fatalf("nothing runs: %+v", j)
	}
	alone := []Call{{Name: "a", Scope: p("a")}}
	if j := Join(alone, p("b"), id); j.Unit != "" || len(j.Moved) != 0 {
		t.Fatalf("disjoint paths: %+v", j)
	}
	j := Join(alone, p("a/1"), id)
	if j.Unit != "u1" || j.Seq != 1 || len(j.Moved) != 1 || j.Moved[0].Name != "a" || j.Moved[0].Unit != "u1" || j.Seen {
		t.Fatalf("meets a call alone: %+v", j)
	}
	// A unit whose call that meets has ended, but which still runs.
	unit := []Call{{Name: "w", Scope: ws, Unit: "u7", Seq: 0, Ended: true}, {Name: "x", Scope: p("x"), Unit: "u7", Seq: 1}}
	if j := Join(unit, p("c.txt"), id); j.Unit != "u7" || j.Seq != 2 || len(j.Moved) != 0 || !j.Seen {
		t.Fatalf("meets a unit's ended call: %+v", j)
	}
	// A unit that ended (no call runs) is joined by nothing.
	ended := []Call{{Name: "w", Scope: ws, Unit: "u7", Ended: true}}
	if j := Join(ended, p("c.txt"), id); j.Unit != "" {
		t.Fatalf("an ended unit: %+v", j)
	}
	// A call meeting a unit and a call alone joins them.
	both := append(append([]Call{}, unit...), Call{Name: "y", Scope: p("y")})
	j = Join(both, ws, id)
	if j.Unit != "u7" || j.Seq != 2 || len(j.Moved) != 1 || j.Moved[0].Name != "y" || j.Seen {
		t.Fatalf("meets a unit and a call alone: %+v", j)
	}
	if Last(unit, "u7", "x") != true || Last(unit, "u7", "w") != false {
		t.Fatal("last")
	}
}

// entry is a walk's entry of a file holding content.
func entry(p, content string) scope.Entry {
	return scope.Entry{Path: p, Mode: 0o644, Size: int64(len(content)), Hash: objects.Sum([]byte(content))}
}

func tree(es ...scope.Entry) *scope.Tree { return scope.NewTree(es) }

func dir(p string) scope.Entry { return scope.Entry{Path: p, Mode: fs.ModeDir | 0o755} }

func summary(cs []Change) string {
	var out []string
	for _, c := range cs {
		s := c.Path + ":"
		if c.Before == nil {
			s += "-"
		} else {
			s += c.Before.Sum()[:6]
		}
		s += ">"
		if c.After == nil {
			s += "-"
		} else {
			s += c.After.Sum()[:6]
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

func sum(content string) string { return objects.Sum([]byte(content)).String()[:6] }

// TestNet: each file from what it held when the first call covering it
// began to what it holds at the end; a file a later call saw that a
// whole-workspace walk covers was absent for the earlier workspace-wide
// call; an ignored file is the call naming it's to say; a file tool's
// pre-image counts as a walk's entry.
func TestNet(t *testing.T) {
	ws := Member{Scope: Scope{Workspace: true}, Walk: tree(dir("a"), entry("a/1", "a1"), entry("c", "c0"))}
	// Made by the workspace-wide call after it began, then removed: a
	// later call naming it saw it, and a whole-workspace walk covered it.
	made := Member{Scope: Scope{Paths: []string{"a/new"}}, Walk: tree(entry("a/new", "tmp")), Seen: []string{"a/new"}}
	// An ignored file, changed by the call naming it and by no other.
	ign := Member{Scope: Scope{Paths: []string{"ign/x"}}, Walk: tree(entry("ign/x", "x0"))}
	// A file tool on c, after the workspace-wide call changed it.
	edit := Member{Scope: Scope{Paths: []string{"c"}}, Files: []changes.FileChange{{Path: "c", Before: fstate.Content([]byte("c1"), fstate.ModeFile)}}}
	after := After{
		Workspace: tree(dir("a"), entry("a/1", "a2"), entry("c", "c2")),
		Paths:     tree(entry("c", "c2"), entry("ign/x", "x1")),
	}
	got := summary(Net([]Member{ws, made, ign, edit}, after))
	want := strings.Join([]string{"a/1:" + sum("a1") + ">" + sum("a2"), "c:" + sum("c0") + ">" + sum("c2"), "ign/x:" + sum("x0") + ">" + sum("x1")}, " ")
	if got != want {
		t.Fatalf("net\n got %s\nwant %s", got, want)
	}
	// Without Seen, the file made and removed would read as removed.
	made.Seen = nil
	if got := summary(Net([]Member{ws, made}, after)); !strings.Contains(got, "a/new:"+sum("tmp")+">-") {
		t.Fatalf("without seen: %s", got)
	}
	// The file tool first: its pre-image is the file's state before.
	got = summary(Net([]Member{edit, ws}, after))
	if !strings.Contains(got, "c:"+sum("c1")+">"+sum("c2")) {
		t.Fatalf("file tool first: %s", got)
	}
	// A file the unit leaves as it was is no change.
	if got := summary(Net([]Member{ws}, After{Workspace: ws.Walk})); got != "" {
		t.Fatalf("nothing changed: %s", got)
	}
}
