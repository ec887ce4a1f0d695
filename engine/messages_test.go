package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cairn/engine/internal/inbox"
	"cairn/internal/vfs"
)

// TestSendMessage: behind its switch, a message to a session open here
// is kept for it at once; one to a session open nowhere is refused, saying
// so, unless queued; bad input changes nothing.
func TestSendMessage(t *testing.T) {
	ctx := context.Background()
	st, ws := testStore(t)
	s := newSession(t, ws)
	name := inboxName(ws.dir, s.ID())
	_, err := ws.SendMessage(ctx, s.ID(), "hello", MessageOptions{})
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "experimental.cross_session_messaging") {
		t.Fatalf("switch off: %v", err)
	}
	if _, err := st.fsys.Stat(name); !vfs.IsNotExist(err) {
		t.Fatal("a refused message was kept")
	}
	must(0, os.WriteFile(filepath.Join(st.home, "config.json"), []byte(`{"experimental":{"cross_session_messaging":true}}`), 0o600))(t)

	other := newSession(t, ws)
	sent := must(ws.SendMessage(ctx, s.ID(), "from the other tab", MessageOptions{From: other.ID()}))(t)
	if sent.Queued || sent.ID == "" {
		t.Fatalf("%+v", sent)
	}
	for _, c := range []struct {
		session, text, from string
		want                error
	}{
		{s.ID(), " \n", "", ErrBadInput},
		{s.ID(), "x", "not-a-session", ErrBadInput},
		{"not-a-session", "x", "", ErrBadInput},
		{newSessionID(), "x", "", ErrNotFound},
	} {
		if _, err := ws.SendMessage(ctx, c.session, c.text, MessageOptions{From: c.from}); !errors.Is(err, c.want) {
			t.Errorf("%+v: %v", c, err)
		}
	}
	must(0, s.Close())(t)
	_, err = ws.SendMessage(ctx, s.ID(), "anyone?", MessageOptions{})
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "not open in any cairn process") {
		t.Fatalf("closed: %v", err)
	}
	q := must(ws.SendMessage(ctx, s.ID(), "for later", MessageOptions{Queue: true}))(t)
	if !q.Queued {
		t.Fatalf("%+v", q)
	}
	box := must(inbox.Open(st.fsys, name, inbox.Options{}))(t)
	msgs, err := box.Pending()
	if err != nil || len(msgs) != 2 || msgs[0].Text != "from the other tab" || msgs[0].From != other.ID() || msgs[1].Text != "for later" {
		t.Fatalf("%+v %v", msgs, err)
	}
	must(0, box.Close())(t)
	if rep := must(st.Fsck(ctx))(t); len(rep.Problems) != 0 {
		t.Fatalf("%+v", rep.Problems)
	}
}
