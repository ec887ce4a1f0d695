package engine

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// fsckSession makes a session of three items, closed, and returns its id
// and the absolute path of its items journal.
func fsckSession(t *testing.T, e *snapEnv) (string, string) {
	t.Helper()
	s := e.session()
	for _, it := range []Item{{Type: User, Text: "ask"}, {Type: Assistant, Text: "answer"}, {Type: User, Text: "again"}} {
		if _, err := s.Append(e.ctx, it); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return s.ID(), filepath.Join(e.ws.Folder(), "sessions", s.ID()+".items.jsonl")
}

// fsckFinds runs fsck and returns its problems and notes as "path: problem"
// lines, paths relative to the state folder.
func fsckFinds(t *testing.T, e *snapEnv) (problems, notes []string) {
	t.Helper()
	r, err := e.store.Fsck(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range r.Problems {
		problems = append(problems, p.Path+": "+p.Problem)
	}
	for _, p := range r.Notes {
		notes = append(notes, p.Path+": "+p.Problem)
	}
	return problems, notes
}

func fsckRel(t *testing.T, e *snapEnv, p string) string {
	t.Helper()
	r, err := filepath.Rel(e.store.Home(), p)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.ToSlash(r)
}

// wantFinding fails unless one of got starts with prefix and holds word.
func wantFinding(t *testing.T, got []string, prefix, word string) {
	t.Helper()
	for _, g := range got {
		if strings.HasPrefix(g, prefix) && strings.Contains(g, word) {
			return
		}
	}
	t.Errorf("no finding %q ... %q in:\n%s", prefix, word, strings.Join(got, "\n"))
}

// TestFsckNamesItemLinesALoadSkips: lines of an items journal that a load
// passes over without a word (a journal copied onto itself, a head moved to
// an unknown item, an item without a known type, another version, an
// unknown kind, an orphan item) are each named by fsck, by file and line.
// Before, fsck only parsed the lines as JSON and called all of this clean.
func TestFsckNamesItemLinesALoadSkips(t *testing.T) {
	e := newSnapEnv(t, "")
	_, items := fsckSession(t, e)
	b, err := os.ReadFile(items)
	if err != nil {
		t.Fatal(err)
	}
	n := strings.Count(string(b), "\n")
	var firstItem string
	for _, l := range strings.Split(string(b), "\n") {
		var x struct{ Kind, ID string }
		if json.Unmarshal([]byte(l), &x) == nil && x.Kind == "item" {
			firstItem = x.ID
			break
		}
	}
	at := `"at":"2026-01-01T00:00:00.000Z"`
	extra := b // the whole journal again: lines n+1 .. 2n
	extra = append(extra, fmt.Sprintf(`{"v":1,"kind":"head",%s,"to":"i-0000000000000000"}`+"\n", at)...)
	extra = append(extra, fmt.Sprintf(`{"v":1,"kind":"item","id":"i-00000000000000aa","type":"bogus",%s}`+"\n", at)...)
	extra = append(extra, fmt.Sprintf(`{"v":7,"kind":"item",%s}`+"\n", at)...)
	extra = append(extra, fmt.Sprintf(`{"v":1,"kind":"frobnicate",%s}`+"\n", at)...)
	extra = append(extra, fmt.Sprintf(`{"v":1,"kind":"item","id":"i-00000000000000bb","type":"user","parent":"i-00000000000000cc","text":"x",%s}`+"\n", at)...)
	if err := os.WriteFile(items, append(b, extra...), 0o600); err != nil {
		t.Fatal(err)
	}
	problems, _ := fsckFinds(t, e)
	name := fsckRel(t, e, items)
	line := func(k int) string { return fmt.Sprintf("%s:%d: ", name, k) }
	wantFinding(t, problems, line(n+1), "second session line (the first is line 1)")
	wantFinding(t, problems, line(n+1+1), "item "+firstItem+" written again (first at line 2)")
	wantFinding(t, problems, line(2*n+1), "head moves to unknown item")
	wantFinding(t, problems, line(2*n+2), `type "bogus"`)
	wantFinding(t, problems, line(2*n+3), "version 7")
	wantFinding(t, problems, line(2*n+4), `unknown kind "frobnicate"`)
	wantFinding(t, problems, line(2*n+5), "names parent i-00000000000000cc")
}

// TestFsckNamesRecordThatDisagrees: a record rewritten in place with a
// false title and item count, while it says it reflects the whole journal,
// is what listings show; fsck names it. Before, fsck called it clean.
func TestFsckNamesRecordThatDisagrees(t *testing.T) {
	e := newSnapEnv(t, "")
	id, _ := fsckSession(t, e)
	if problems, _ := fsckFinds(t, e); len(problems) != 0 {
		t.Fatalf("a sound session: %v", problems)
	}
	recName := filepath.Join(e.ws.Folder(), "sessions", id+".json")
	var rec map[string]any
	b, err := os.ReadFile(recName)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	rec["title"] = "STALE TITLE"
	rec["counts"].(map[string]any)["items"] = 999
	if b, err = json.Marshal(rec); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(recName, b, 0o600); err != nil {
		t.Fatal(err)
	}
	problems, _ := fsckFinds(t, e)
	wantFinding(t, problems, fsckRel(t, e, recName)+": ", `it says "STALE TITLE", 999 items`)
}

// TestFsckNamesUnusableIndexAndLock: an index.json a listing cannot use (a
// FIFO, random bytes) is a note, and a lock file that is not a regular file,
// which keeps every writer out, is a problem. Before, fsck said nothing of
// either.
func TestFsckNamesUnusableIndexAndLock(t *testing.T) {
	e := newSnapEnv(t, "")
	id, _ := fsckSession(t, e)
	if _, _, err := e.ws.List(e.ctx); err != nil {
		t.Fatal(err)
	}
	idx := filepath.Join(e.ws.Folder(), "index.json")
	lock := filepath.Join(e.ws.Folder(), "sessions", id+".lock")
	if err := os.WriteFile(idx, []byte("\x00\x01 not an index {"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, notes := fsckFinds(t, e)
	wantFinding(t, notes, fsckRel(t, e, idx)+": ", "unusable")

	for _, name := range []string{idx, lock} {
		os.Remove(name)
		if err := syscall.Mkfifo(name, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	problems, notes := fsckFinds(t, e)
	wantFinding(t, notes, fsckRel(t, e, idx)+": ", "not a regular file")
	wantFinding(t, problems, fsckRel(t, e, lock)+": ", "not a regular file")
}

// TestFsckGarbageJournalIsNotEmpty: a journal overwritten with a line that
// is not JSON is named as damaged, not as an empty session left by a failed
// creation with advice to remove it.
func TestFsckGarbageJournalIsNotEmpty(t *testing.T) {
	e := newSnapEnv(t, "")
	_, items := fsckSession(t, e)
	if err := os.WriteFile(items, []byte("garbage{{{\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	problems, _ := fsckFinds(t, e)
	wantFinding(t, problems, fsckRel(t, e, items)+":1: ", "not a JSON line")
	for _, p := range problems {
		if strings.Contains(p, "empty session") {
			t.Errorf("a garbage journal called empty: %s", p)
		}
	}
}
