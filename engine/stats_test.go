package engine

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"cairn/engine/internal/stats"
	"cairn/objects"
)

// statsFixture fills a state folder with a bit of everything: payloads,
// change records with stored pre-images, outputs, a leftover temp file, an
// old orphaned output folder, an old unreferenced object, and old trash.
func statsFixture(t *testing.T) (*Store, *Workspace, *Session) {
	t.Helper()
	ctx := context.Background()
	s, ws := testStore(t)
	sess := newSession(t, ws)
	big := strings.Repeat("a payload big enough to be stored as an object\n", 800)
	must(sess.Append(ctx, Item{Type: User, Text: big}))(t)
	must(sess.ToolWrite(ctx, "a.txt", []byte(big+"1")))(t)
	must(sess.ToolWrite(ctx, "a.txt", []byte("short")))(t)
	must(sess.PutOutput(ctx, "grep", strings.NewReader(big)))(t)
	noErr(t, sess.Close()) // the record says what Close wrote
	folder := ws.Folder()
	home := s.Home()
	// A temp file whose process is gone (pid 1 is never ours, but it is
	// alive: use a pid past the largest one the kernel hands out).
	noErr(t, os.WriteFile(filepath.Join(folder, "sessions", ".x.json.2147483646-0123456789abcdef.cairn-tmp"), []byte("tmp"), 0o600))
	old := time.Now().Add(-10 * 24 * time.Hour)
	orphan := filepath.Join(folder, "outputs", "00000000-0000-4000-8000-000000000000")
	noErr(t, os.MkdirAll(orphan, 0o700))
	noErr(t, os.WriteFile(filepath.Join(orphan, "o-1.zst"), bytes.Repeat([]byte("o"), 5000), 0o600))
	noErr(t, os.Chtimes(filepath.Join(orphan, "o-1.zst"), old, old))
	noErr(t, os.Chtimes(orphan, old, old))
	objs := objects.New(s.FS(), path.Join(workspaceDir(ws.Key()), "objects"))
	info := must(objs.Put(ctx, strings.NewReader(strings.Repeat("nobody names me ", 2000))))(t)
	name := filepath.Join(home, filepath.FromSlash(objs.Path(info.ID, info.Compressed)))
	noErr(t, os.Chtimes(name, old, old))
	// The trash as retention's forget leaves it: an entry forgotten 10
	// days ago (reclaimable), one forgotten now (not yet).
	// An old object only the newer forgotten session names: not
	// reclaimable while the trash holds the session.
	held := must(objs.Put(ctx, strings.NewReader(strings.Repeat("the trash names me ", 2000))))(t)
	noErr(t, os.Chtimes(filepath.Join(home, filepath.FromSlash(objs.Path(held.ID, held.Compressed))), old, old))
	line := fmt.Sprintf(`{"v":1,"kind":"item","payload":{"oid":%q,"size":1}}`+"\n", held.ID.String())
	for i, at := range []time.Time{old, time.Now()} {
		id := fmt.Sprintf("0000000%d-0000-4000-8000-000000000000", i)
		trash := filepath.Join(home, "trash", id)
		noErr(t, os.MkdirAll(filepath.Join(trash, "sessions"), 0o700))
		note := fmt.Sprintf(`{"v":1,"session":%q,"workspace":%q,"path":"/x","at":%q}`, id, ws.Key(), at.UTC().Format("2006-01-02T15:04:05.000Z"))
		noErr(t, os.WriteFile(filepath.Join(trash, "forgotten.json"), []byte(note), 0o600))
		journal := bytes.Repeat([]byte("t"), 3000)
		if i == 1 {
			journal = append(journal, line...)
		}
		noErr(t, os.WriteFile(filepath.Join(trash, "sessions", id+".items.jsonl"), journal, 0o600))
	}
	return s, ws, sess
}

// The parts add up to du of the whole state folder, apparent bytes and
// blocks alike, and each part's files to what du says of them.
func TestStatsMatchDu(t *testing.T) {
	ctx := context.Background()
	s, _, _ := statsFixture(t)
	st := must(s.Stats(ctx))(t)
	var sum Size
	for _, p := range st.Parts {
		sum.Add(p.Size)
	}
	if sum != st.Total {
		t.Fatalf("parts add up to %+v, total says %+v", sum, st.Total)
	}
	for _, p := range []string{PartSessions, PartChanges, PartObjects, PartOutputs, PartTrash, PartOther} {
		if st.Part(p).Bytes == 0 {
			t.Errorf("part %s is empty: %+v", p, st.Parts)
		}
	}
	if st.Sessions != 1 || st.Items < 2 || st.Workspaces != 1 {
		t.Errorf("counts: %d sessions, %d items, %d workspaces", st.Sessions, st.Items, st.Workspaces)
	}
	r := st.Reclaim
	if r.Temps.Files != 1 || r.OrphanOutputs.Files != 1 || r.OrphanOutputs.Folders != 1 || r.UnreferencedObjects.Files != 1 || r.OldTrash.Files != 2 || r.OldTrash.Folders != 2 {
		t.Errorf("reclaim counts the wrong files: %+v", r)
	}
	// An independent walk: each part's files (not folders) by what os.Lstat
	// says, then the same files through du itself when it is installed.
	files := map[string][]string{}
	dirs := map[string]int64{}
	folders := map[string]int{}
	noErr(t, stats.Walk(ctx, s.FS(), func(name, part string, fi fs.FileInfo, z stats.Size) error {
		if fi.IsDir() {
			dirs[part] += z.Bytes
			folders[part]++
		} else {
			files[part] = append(files[part], filepath.Join(s.Home(), filepath.FromSlash(name)))
		}
		return nil
	}))
	for _, p := range st.Parts {
		if p.Files != len(files[p.Name]) || p.Folders != folders[p.Name] {
			t.Errorf("part %s: %d files and %d folders, stats says %d and %d", p.Name, len(files[p.Name]), folders[p.Name], p.Files, p.Folders)
		}
		var n int64
		for _, f := range files[p.Name] {
			fi := must(os.Lstat(f))(t)
			n += fi.Size()
		}
		if n+dirs[p.Name] != p.Bytes {
			t.Errorf("part %s: files and folders take %d bytes, stats says %d", p.Name, n+dirs[p.Name], p.Bytes)
		}
	}
	if _, err := exec.LookPath("du"); err != nil {
		t.Log("du is not installed: compared with os.Lstat only")
		return
	}
	if got := runDu(t, "-sb", s.Home()); got != st.Total.Bytes {
		t.Errorf("du -sb says %d, stats %d", got, st.Total.Bytes)
	}
	if got := runDu(t, "-s", "-B1", s.Home()); got != st.Total.Disk {
		t.Errorf("du -s -B1 says %d, stats %d", got, st.Total.Disk)
	}
	for _, p := range st.Parts {
		if len(files[p.Name]) == 0 {
			continue
		}
		got := runDu(t, append([]string{"-bc"}, files[p.Name]...)...)
		if got+dirs[p.Name] != p.Bytes {
			t.Errorf("part %s: du says %d bytes of files (+%d of folders), stats %d", p.Name, got, dirs[p.Name], p.Bytes)
		}
	}
}

// runDu runs du and returns its figure (the last line's, the total with -c).
func runDu(t *testing.T, args ...string) int64 {
	t.Helper()
	out, err := exec.Command("du", args...).Output()
	if err != nil {
		t.Fatalf("du %v: %v", args, err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	f := strings.Fields(lines[len(lines)-1])
	n, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil {
		t.Fatalf("du %v: %q", args, out)
	}
	return n
}

// noErr fails the test on err.
func noErr(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// A store no session holds is listed as orphaned, never hidden; one whose
// directory is gone says so (the listing shows its key); stores come
// largest first, with their records, holders, open calls and pending
// reverts.
func TestChangeStoresOrphanedAndGone(t *testing.T) {
	ctx := context.Background()
	s, ws, sess := statsFixture(t)
	// A second workspace whose directory is removed and whose sessions are
	// all gone: its objects stay behind.
	gone := t.TempDir()
	ws2 := must(s.Workspace(gone))(t)
	s2 := newSession(t, ws2)
	must(s2.ToolWrite(ctx, "b.txt", []byte(strings.Repeat("x", 20000))))(t)
	must(s2.ToolWrite(ctx, "b.txt", []byte("y")))(t)
	noErr(t, s2.Close())
	noErr(t, os.RemoveAll(gone))
	for _, suf := range []string{".items.jsonl", ".json", ".changes.jsonl", ".audit.jsonl", ".lock"} {
		os.Remove(filepath.Join(ws2.Folder(), "sessions", s2.ID()+suf))
	}
	// An open call line in the first workspace (records-contract).
	f := must(os.OpenFile(filepath.Join(ws.Folder(), "sessions", sess.ID()+".changes.jsonl"), os.O_APPEND|os.O_WRONLY, 0))(t)
	must(f.WriteString(`{"v":1,"kind":"call","id":"m1-0000000a","at":"2026-11-29T09:12:03.120Z","tool":"exec","scope":"workspace"}` + "\n"))(t)
	noErr(t, f.Close())

	l := must(s.ChangeStores(ctx))(t)
	if len(l) != 2 {
		t.Fatalf("%d stores, want 2: %+v", len(l), l)
	}
	if l[0].Size.Bytes < l[1].Size.Bytes {
		t.Errorf("not largest first: %+v", l)
	}
	var live, orphan ChangeStore
	for _, c := range l {
		if c.Key == ws.Key() {
			live = c
		} else {
			orphan = c
		}
	}
	if orphan.Key != ws2.Key() || !orphan.Orphaned || !orphan.PathGone || orphan.Objects == 0 || orphan.Sessions != 0 {
		t.Errorf("orphaned store: %+v", orphan)
	}
	if live.Orphaned || live.PathGone || live.Records != 2 || live.Holding != 1 || live.Open != 1 || live.Sessions != 1 || live.Objects < 2 {
		t.Errorf("live store: %+v", live)
	}
	if why := ws.RevertUnavailable(sess.ID()); why != "" {
		t.Errorf("revert unavailable for a session with records: %s", why)
	}
	s3 := newSession(t, ws)
	noErr(t, s3.Close())
	if why := ws.RevertUnavailable(s3.ID()); !strings.Contains(why, "no change records") {
		t.Errorf("a session without records: %q", why)
	}
}
