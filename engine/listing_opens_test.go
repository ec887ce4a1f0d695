package engine

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestListingShowsWhatOpens: a listing shows exactly the sessions that
// open. A damaged record over an intact journal, and a journal another
// program wrote on past its record, are rebuilt and listed (first when
// newest, by prefix and by title too); a journal that is gone, that holds
// nothing readable or no session line is left out, never first, and named
// in the listing's problems and by fsck.
func TestListingShowsWhatOpens(t *testing.T) {
	ctx := context.Background()
	now := time.Now().Add(-time.Hour)
	s, err := Open(filepath.Join(t.TempDir(), "home"), WithClock(func() time.Time { return now }))
	noErr(t, err)
	t.Cleanup(func() { s.Close() })
	ws := must(s.Workspace(t.TempDir()))(t)
	cases := []string{"ok", "torn record", "garbage record", "grown journal", "garbage journal", "no journal", "no session line"}
	ids := map[string]string{}
	for _, c := range cases {
		now = now.Add(time.Minute)
		sess := ws.Create(SessionOptions{})
		must(sess.Append(ctx, Item{Type: User, Text: c}))(t)
		noErr(t, sess.Close())
		ids[c] = sess.ID()
	}
	ws.List(ctx) // the index knows every session as it was
	dir := filepath.Join(ws.Folder(), "sessions")
	file := func(c, suffix string) string { return filepath.Join(dir, ids[c]+suffix) }
	rec := must(os.ReadFile(file("torn record", ".json")))(t)
	noErr(t, os.WriteFile(file("torn record", ".json"), rec[:len(rec)/2], 0o600))
	noErr(t, os.WriteFile(file("garbage record", ".json"), []byte(`{"v":1,"title":`), 0o600))
	f := must(os.OpenFile(file("grown journal", ".items.jsonl"), os.O_APPEND|os.O_WRONLY, 0))(t)
	must(f.WriteString(`{"v":1,"kind":"title","title":"renamed elsewhere","source":"user","at":"` + now.UTC().Format("2006-01-02T15:04:05.000Z") + `"}` + "\n"))(t)
	noErr(t, f.Close())
	noErr(t, os.WriteFile(file("garbage journal", ".items.jsonl"), []byte("garbage\n"), 0o600))
	noErr(t, os.Remove(file("no journal", ".items.jsonl")))
	b := must(os.ReadFile(file("no session line", ".items.jsonl")))(t)
	noErr(t, os.WriteFile(file("no session line", ".items.jsonl"), []byte(strings.SplitN(string(b), "\n", 2)[1]), 0o600))

	l, problems, err := ws.List(ctx)
	noErr(t, err)
	var got []string
	for _, e := range l {
		got = append(got, e.Title)
	}
	want := []string{"renamed elsewhere", "garbage record", "torn record", "ok"}
	if !slices.Equal(got, want) {
		t.Fatalf("listed %q, want %q", got, want)
	}
	var named []string
	for _, p := range problems {
		named = append(named, p.Name)
	}
	slices.Sort(named)
	wantNamed := []string{"sessions/" + ids["garbage journal"] + ".items.jsonl", "sessions/" + ids["no journal"] + ".json", "sessions/" + ids["no session line"] + ".items.jsonl"}
	slices.Sort(wantNamed)
	if !slices.Equal(named, wantNamed) {
		t.Fatalf("problems %+v, want %v", problems, wantNamed)
	}
	// What is listed opens; what is not does not.
	for _, c := range cases {
		listedNow := slices.ContainsFunc(l, func(s Summary) bool { return s.ID == ids[c] })
		sess, err := ws.Open(ctx, ids[c], SessionOptions{})
		if err == nil {
			sess.Close()
		}
		if (err == nil) != listedNow {
			t.Errorf("%s: listed %v, opens: %v", c, listedNow, err)
		}
	}
	if id := must(ws.Latest(ctx))(t); id != ids["grown journal"] {
		t.Errorf("latest is %s, want the grown one", id)
	}
	for ref, c := range map[string]string{ids["garbage record"][:8]: "garbage record", "torn record": "torn record", ids["torn record"][:13]: "torn record"} {
		if id, err := ws.Resolve(ctx, ref); err != nil || id != ids[c] {
			t.Errorf("resolve %q: %s %v, want %s", ref, id, err, ids[c])
		}
	}
	if _, err := ws.Resolve(ctx, ids["garbage journal"][:8]); err == nil {
		t.Errorf("a prefix finds the session that cannot be read")
	}
	rep := must(s.Fsck(ctx))(t)
	for _, c := range []string{"garbage journal", "no journal", "no session line"} {
		if !slices.ContainsFunc(rep.Problems, func(p FsckProblem) bool { return strings.Contains(p.Path, ids[c]) }) {
			t.Errorf("fsck does not name %s: %+v", c, rep.Problems)
		}
	}
}
