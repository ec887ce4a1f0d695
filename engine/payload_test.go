package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"cairn/internal/vfs"
	"cairn/objects"
)

// bigText is an item text over the inline limit: it is stored as an object.
func bigText(word string) string {
	return strings.Repeat(word+" ", payloadInline/len(word)+100)
}

// objectFile is the file that holds object oid in ws's store on disk.
func objectFile(t *testing.T, ws *Workspace, text string) string {
	t.Helper()
	oid := objects.Sum([]byte(text)).String()
	m, _ := filepath.Glob(filepath.Join(ws.Folder(), "objects", oid[:2], oid[2:]+"*"))
	if len(m) != 1 {
		t.Fatalf("object %s: files %v", oid, m)
	}
	return m[0]
}

// payloadLine is the items journal line (and its 1-based number) naming
// text's object.
func payloadLine(t *testing.T, ws *Workspace, id, text string) (int, []byte) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(ws.Folder(), "sessions", id+".items.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	oid := objects.Sum([]byte(text)).String()
	for i, l := range bytes.Split(b, []byte("\n")) {
		if bytes.Contains(l, []byte(`"oid":"`+oid+`"`)) {
			return i + 1, l
		}
	}
	t.Fatalf("no line of %s names %s", id, oid)
	return 0, nil
}

// TestUnavailablePayloadDegradesOneItem: a missing payload object and a
// corrupt one make their two items unavailable, named as such; everything
// else of the session works (reading, resuming, undo, redo, new prompts,
// fork). The journal lines stay as they were, so putting the object files
// back brings both texts back, in the session and in its fork; fsck names
// every journal line that refers to them.
func TestUnavailablePayloadDegradesOneItem(t *testing.T) {
	ctx := context.Background()
	store, ws := testStore(t)
	answer, prompt := bigText("answer"), bigText("pasted")
	s := ws.Create(SessionOptions{})
	id := s.ID()
	for _, it := range []Item{{Type: User, Text: "first"}, {Type: Assistant, Text: answer}, {Type: User, Text: prompt}} {
		if _, err := s.Append(ctx, it); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(ws.Path(), "a.txt")
	for _, c := range []string{"one\n", "two\n"} {
		if _, err := s.ToolWrite(ctx, "a.txt", []byte(c)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.EndTurn(ctx, Turn{}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	answerFile, promptFile := objectFile(t, ws, answer), objectFile(t, ws, prompt)
	answerN, answerLine := payloadLine(t, ws, id, answer)
	promptN, promptLine := payloadLine(t, ws, id, prompt)
	saved, err := os.ReadFile(promptFile)
	if err != nil {
		t.Fatal(err)
	}
	savedAnswer, err := os.ReadFile(answerFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(answerFile); err != nil {
		t.Fatal(err)
	}
	corrupt := bytes.Clone(saved)
	corrupt[len(corrupt)/2] ^= 0xff
	if err := os.WriteFile(promptFile, corrupt, 0o600); err != nil {
		t.Fatal(err)
	}

	// checkItems checks the texts of the first three items of tr.
	checkItems := func(what string, tr []Item, wantAnswer, wantPrompt string) {
		t.Helper()
		if len(tr) < 3 || tr[0].Text != "first" || tr[0].Unavailable != nil {
			t.Fatalf("%s: transcript %d items, first %+v", what, len(tr), tr)
		}
		for _, c := range []struct {
			it     Item
			text   string
			reason string
		}{{tr[1], wantAnswer, payloadMissing}, {tr[2], wantPrompt, payloadCorrupt}} {
			if c.text != "" {
				if c.it.Text != c.text || c.it.Unavailable != nil {
					t.Fatalf("%s: item %s: %d bytes, unavailable %+v; want its text back", what, c.it.ID, len(c.it.Text), c.it.Unavailable)
				}
				continue
			}
			u := c.it.Unavailable
			if u == nil || c.it.Text != "" || u.Reason != c.reason || u.OID != objects.Sum([]byte(map[string]string{payloadMissing: answer, payloadCorrupt: prompt}[c.reason])).String() {
				t.Fatalf("%s: item %s: text %d bytes, unavailable %+v; want %s", what, c.it.ID, len(c.it.Text), u, c.reason)
			}
			if want := "[payload unavailable: object " + u.OID + " " + c.reason + "]"; u.String() != want {
				t.Fatalf("%s: shown as %q, want %q", what, u.String(), want)
			}
		}
	}

	v, err := ws.Read(ctx, id)
	if err != nil {
		t.Fatalf("a bad payload object makes the session unreadable: %v", err)
	}
	checkItems("read", v.Transcript(), "", "")
	if got := v.Unavailable(); len(got) != 2 {
		t.Fatalf("View.Unavailable: %+v", got)
	}

	var notices []string
	s, err = ws.Open(ctx, id, SessionOptions{Notice: func(m string) { notices = append(notices, m) }})
	if err != nil {
		t.Fatalf("a bad payload object makes the session unopenable: %v", err)
	}
	checkItems("open", s.Transcript(), "", "")
	if len(notices) != 1 || !strings.Contains(notices[0], tr1ID(s)) || !strings.Contains(notices[0], "2 item(s) unavailable") {
		t.Fatalf("notices: %q", notices)
	}
	if _, err := s.Undo(ctx); err != nil {
		t.Fatalf("undo: %v", err)
	}
	if b, _ := os.ReadFile(file); string(b) != "one\n" {
		t.Fatalf("after undo a.txt is %q", b)
	}
	if _, err := s.Redo(ctx); err != nil {
		t.Fatalf("redo: %v", err)
	}
	if b, _ := os.ReadFile(file); string(b) != "two\n" {
		t.Fatalf("after redo a.txt is %q", b)
	}
	if _, err := s.Append(ctx, Item{Type: User, Text: "third"}); err != nil {
		t.Fatalf("a new prompt: %v", err)
	}
	if err := s.EndTurn(ctx, Turn{}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	fork, err := ws.Fork(ctx, id, "")
	if err != nil {
		t.Fatalf("fork: %v", err)
	}
	fv, err := ws.Read(ctx, fork.Session)
	if err != nil {
		t.Fatal(err)
	}
	checkItems("fork", fv.Transcript(), "", "")

	// fsck names each line of both journals that refers to a bad object.
	rep, err := store.Fsck(ctx)
	if err != nil {
		t.Fatal(err)
	}
	items := func(sess string) string { return path.Join(ws.dir, "sessions", sess+".items.jsonl") }
	forkAnswerN, _ := payloadLine(t, ws, fork.Session, answer)
	forkPromptN, _ := payloadLine(t, ws, fork.Session, prompt)
	for _, w := range []struct {
		where, what string
	}{
		{fmt.Sprintf("%s:%d", items(id), answerN), "which is missing"},
		{fmt.Sprintf("%s:%d", items(id), promptN), "which is corrupt"},
		{fmt.Sprintf("%s:%d", items(fork.Session), forkAnswerN), "which is missing"},
		{fmt.Sprintf("%s:%d", items(fork.Session), forkPromptN), "which is corrupt"},
	} {
		found := false
		for _, p := range rep.Problems {
			found = found || p.Path == w.where && strings.Contains(p.Problem, w.what)
		}
		if !found {
			t.Errorf("fsck does not name %s (%s): %+v", w.where, w.what, rep.Problems)
		}
	}

	// The lines are untouched; the objects put back bring the texts back.
	if _, l := payloadLine(t, ws, id, answer); !bytes.Equal(l, answerLine) {
		t.Fatalf("the answer's line changed:\n%s\n%s", answerLine, l)
	}
	if _, l := payloadLine(t, ws, id, prompt); !bytes.Equal(l, promptLine) {
		t.Fatalf("the prompt's line changed:\n%s\n%s", promptLine, l)
	}
	if err := os.WriteFile(answerFile, savedAnswer, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(promptFile, saved, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, sess := range []string{id, fork.Session} {
		v, err := ws.Read(ctx, sess)
		if err != nil {
			t.Fatal(err)
		}
		checkItems("restored", v.Transcript(), answer, prompt)
	}
	if rep, err := store.Fsck(ctx); err != nil || len(rep.Problems) != 0 {
		t.Fatalf("fsck after restoring: %+v %v", rep, err)
	}
}

func tr1ID(s *Session) string { return s.Transcript()[1].ID }

// TestUnreadablePayloadAndCancel: an object that cannot be opened (an I/O
// error) makes its item unavailable as "unreadable" with the error; a load
// whose context is cancelled fails instead of marking items unavailable.
func TestUnreadablePayloadAndCancel(t *testing.T) {
	ctx := context.Background()
	e := newMemEnv(t)
	text := bigText("result")
	s := e.ws.Create(SessionOptions{})
	for _, it := range []Item{{Type: User, Text: "go"}, {Type: ToolResult, Text: text}} {
		if _, err := s.Append(ctx, it); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	oid := objects.Sum([]byte(text)).String()
	e.faulty.Inject(vfs.Rule{Op: vfs.OpOpen, Path: path.Join(e.ws.dir, "objects", oid[:2], "*")})
	v, err := e.ws.Read(ctx, s.ID())
	if err != nil {
		t.Fatal(err)
	}
	tr := v.Transcript()
	if len(tr) != 2 || tr[0].Text != "go" || tr[1].Unavailable == nil || tr[1].Unavailable.Reason != payloadUnreadable ||
		!strings.Contains(tr[1].Unavailable.Error, syscall.EIO.Error()) {
		t.Fatalf("transcript %+v", tr)
	}
	e.faulty.Reset()
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := e.ws.Read(cancelled, s.ID()); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled load: %v, want context.Canceled", err)
	}
	if v, err = e.ws.Read(ctx, s.ID()); err != nil || v.Transcript()[1].Text != text {
		t.Fatalf("after the fault: %v", err)
	}
}

// TestDraftOfAPayloadPrompt: forking or reverting at a prompt stored as an
// object hands its text back for editing; when the object is missing, the
// result says the draft is unavailable rather than handing back nothing.
func TestDraftOfAPayloadPrompt(t *testing.T) {
	ctx := context.Background()
	_, ws := testStore(t)
	prompt := bigText("pasted")
	s := ws.Create(SessionOptions{})
	var at string
	for _, it := range []Item{{Type: User, Text: "first"}, {Type: User, Text: prompt}, {Type: Assistant, Text: "ok"}} {
		got, err := s.Append(ctx, it)
		if err != nil {
			t.Fatal(err)
		}
		if it.Text == prompt {
			at = got.ID
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := ws.Fork(ctx, s.ID(), at)
	if err != nil || f.Draft != prompt || f.DraftUnavailable != nil {
		t.Fatalf("fork at the prompt: draft of %d bytes, unavailable %v, %v", len(f.Draft), f.DraftUnavailable, err)
	}
	file := objectFile(t, ws, prompt)
	saved, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(file)
	f, err = ws.Fork(ctx, s.ID(), at)
	if err != nil || f.Draft != "" || f.DraftUnavailable == nil || f.DraftUnavailable.Reason != payloadMissing {
		t.Fatalf("fork at a prompt whose object is gone: %+v %v", f, err)
	}
	s, err = ws.Open(ctx, s.ID(), SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Revert(ctx, at, RevertConversation)
	if err != nil || r.Draft != "" || r.DraftUnavailable == nil || r.DraftUnavailable.Reason != payloadMissing {
		t.Fatalf("revert to a prompt whose object is gone: %+v %v", r, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, saved, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err = ws.Open(ctx, s.ID(), SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Unrevert(ctx); err != nil {
		t.Fatal(err)
	}
	if r, err = s.Revert(ctx, at, RevertConversation); err != nil || r.Draft != prompt || r.DraftUnavailable != nil {
		t.Fatalf("revert with the object back: draft of %d bytes, %v", len(r.Draft), err)
	}
}
