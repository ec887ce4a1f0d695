package engine

import (
	"testing"
)

func TestTitleCleanPromptKept(t *testing.T) {
	_, ws := testStore(t)
	sess := ws.Create(SessionOptions{})
	defer sess.Close()
	in := "x \x1b[31mred\x1b[0m\x00"
	if _, err := sess.Append(t.Context(), Item{Type: User, Text: in}); err != nil {
		t.Fatal(err)
	}
	if got := sess.Transcript()[0].Text; got != in {
		t.Fatalf("the prompt was changed: %q", got)
	}
	if got := sess.Record().Title; got != "x red" {
		t.Fatalf("title %q", got)
	}
}

// A name given to a session is its title as given, on one line: inner
// spaces typed on purpose stay, line breaks and tabs become one space,
// white space at the ends goes. The record and a reload agree.
func TestRenameKeepsNameOnOneLine(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"fix   the parser", "fix   the parser"},
		{"  padded  ", "padded"},
		{"two\nlines", "two lines"},
		{"a \r\n\t b", "a b"},
		{"tab\there", "tab here"},
		{"para\u2029sep\u0085nel", "para sep nel"},
		{"wide\u3000space", "wide\u3000space"},
		{"esc\x1b[31m kept", "esc\x1b[31m kept"},
	} {
		if got := NameLine(c.in); got != c.want {
			t.Errorf("NameLine(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	_, ws := testStore(t)
	sess := ws.Create(SessionOptions{})
	must(sess.Append(t.Context(), Item{Type: User, Text: "hi"}))(t)
	if err := sess.Rename(t.Context(), " release  notes,\n\tdraft 2 "); err != nil {
		t.Fatal(err)
	}
	const want = "release  notes, draft 2"
	if got := sess.Record().Title; got != want {
		t.Fatalf("title %q, want %q", got, want)
	}
	id := sess.ID()
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, ws, id).Record.Title; got != want {
		t.Fatalf("title after a reload %q, want %q", got, want)
	}
}
