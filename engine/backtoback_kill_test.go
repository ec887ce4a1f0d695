package engine

import (
	"testing"

	"cairn/internal/vfs"
)

// TestKilledOwnerThenPowerLoss: an owner killed after two small writes
// (their folder's sync left to the end of the turn, which never came) lost
// nothing, but nothing made those writes durable either. The next owner,
// which redoes nothing after a kill, writes in another folder and ends its
// turn, which writes a close line, and closes; then the power goes. The
// close line must not say the killed owner's writes were made while their
// folder was never synced: opened again, the files hold every write.
func TestKilledOwnerThenPowerLoss(t *testing.T) {
	e := newCrashEnv(t)
	for _, d := range []string{"src", "lib"} {
		if err := e.mem.MkdirAll(d, vfs.DirPerm); err != nil {
			t.Fatal(err)
		}
	}
	e.put("src/a.txt", "a0")
	e.put("src/b.txt", "b0")
	e.put("lib/c.txt", "c0")
	for _, d := range []string{"src", "lib", "."} {
		if err := e.mem.SyncDir(d); err != nil {
			t.Fatal(err)
		}
	}
	s := e.ws.Create(SessionOptions{})
	must(s.Append(e.ctx, Item{Type: User, Text: "two edits"}))(t)
	must(0, s.EndTurn(e.ctx, Turn{}))(t)
	must(s.ToolWrite(e.ctx, "src/a.txt", []byte("a1")))(t)
	must(s.ToolWrite(e.ctx, "src/b.txt", []byte("b1")))(t)
	id := s.ID()
	e.mem.Kill()
	killed, killedStore := s, e.st // closed last: a dead process syncs nothing
	defer killedStore.Close()
	defer killed.Close()

	e.open()
	s = must(e.ws.Open(e.ctx, id, SessionOptions{}))(t)
	must(s.ToolWrite(e.ctx, "lib/c.txt", []byte("c1")))(t)
	must(0, s.Commit(e.ctx))(t)
	s.Close()
	e.st.Close()
	e.mem.Crash()

	e.open()
	s = must(e.ws.Open(e.ctx, id, SessionOptions{}))(t)
	defer s.Close()
	for name, want := range map[string]string{"src/a.txt": "a1", "src/b.txt": "b1", "lib/c.txt": "c1"} {
		if got := e.file(name); got != want {
			t.Errorf("%s holds %q, want %q", name, got, want)
		}
	}
	if l := must(s.Snapshots(e.ctx))(t); len(l.Snapshots) != 3 {
		t.Errorf("%d snapshots listed, want 3", len(l.Snapshots))
	}
}
