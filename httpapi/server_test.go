package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cairn/engine"
	"cairn/httpapi"
	"cairn/httpapi/httpapitest"
)

func TestServerListAndRestore(t *testing.T) {
	f := httpapitest.NewFixture(t)
	id := f.Session(f.WS, "alpha")
	f.Write(id, "a.txt", "one")
	f.Write(id, "a.txt", "two")
	f.Write(id, "b.txt", "bee")

	a := f.Do("GET", httpapitest.SnapshotsPath(id), f.Gateway, "")
	f.Want(a, 200, "")
	var l engine.SnapshotList
	a.JSON(t, &l)
	if !l.OK || l.Session != id || l.Cursor != 3 || len(l.Snapshots) != 3 {
		t.Fatalf("list: %s", a.Body)
	}
	for _, s := range l.Snapshots {
		if !s.Applied || s.ID == "" || len(s.Files) != 1 {
			t.Fatalf("snapshot %+v in %s", s, a.Body)
		}
	}
	first := l.Snapshots[0].ID
	if l.Snapshots[2].ID == first {
		t.Fatalf("list is not in order: %s", a.Body)
	}

	// Undo: the default action, for an empty body and for {}.
	var r engine.RestoreResult
	a = f.Do("POST", httpapitest.RestorePath(id), f.Gateway, "")
	f.Want(a, 200, "")
	a.JSON(t, &r)
	if !r.OK || r.Action != "undo" || r.Cursor != 2 || len(r.Steps) != 1 || len(r.Steps[0].Removed) != 1 {
		t.Fatalf("undo: %s", a.Body)
	}
	if got := f.Read("b.txt"); got != "<absent>" {
		t.Fatalf("b.txt after undo: %q", got)
	}
	a = f.Do("POST", httpapitest.RestorePath(id), f.Gateway, "{}")
	f.Want(a, 200, "")
	r = engine.RestoreResult{}
	a.JSON(t, &r)
	if r.Action != "undo" || r.Cursor != 1 || len(r.Steps) != 1 || len(r.Steps[0].Restored) != 1 {
		t.Fatalf("undo {}: %s", a.Body)
	}
	if got := f.Read("a.txt"); got != "one" {
		t.Fatalf("a.txt after undo: %q", got)
	}

	// Redo puts "two" back.
	a = f.Do("POST", httpapitest.RestorePath(id), f.Gateway, `{"action":"redo"}`)
	f.Want(a, 200, "")
	r = engine.RestoreResult{}
	a.JSON(t, &r)
	if r.Action != "redo" || r.Cursor != 2 || len(r.Steps) != 1 {
		t.Fatalf("redo: %s", a.Body)
	}
	if got := f.Read("a.txt"); got != "two" {
		t.Fatalf("a.txt after redo: %q", got)
	}

	// Restore to the first snapshot undoes it and the one after it.
	a = f.Do("POST", httpapitest.RestorePath(id), f.Gateway, `{"id":"`+first+`"}`)
	f.Want(a, 200, "")
	r = engine.RestoreResult{}
	a.JSON(t, &r)
	if r.Action != "restore" || r.Cursor != 0 || len(r.Steps) != 2 {
		t.Fatalf("restore to %s: %s", first, a.Body)
	}
	if got := f.Read("a.txt"); got != "<absent>" {
		t.Fatalf("a.txt after restore to the first snapshot: %q", got)
	}

	// Nothing left to undo; an undone id and an unknown id are refused,
	// in the words the cairn command uses, never a package's name.
	a = f.Do("POST", httpapitest.RestorePath(id), f.Gateway, `{"action":"undo"}`)
	f.Want(a, 409, "refused")
	if bytes.Contains(a.Body, []byte("engine:")) || !bytes.Contains(a.Body, []byte("nothing to undo")) {
		t.Fatalf("undo with nothing to undo: %s", a.Body)
	}
	f.Want(f.Do("POST", httpapitest.RestorePath(id), f.Gateway, `{"id":"`+first+`"}`), 409, "refused")
	f.Want(f.Do("POST", httpapitest.RestorePath(id), f.Gateway, `{"id":"no-such-snapshot"}`), 409, "refused")
	if got := f.Read("a.txt"); got != "<absent>" {
		t.Fatalf("a refused restore changed a.txt: %q", got)
	}

	// Redo all three, then there is nothing to redo.
	for range 3 {
		f.Want(f.Do("POST", httpapitest.RestorePath(id), f.Gateway, `{"action":"redo"}`), 200, "")
	}
	f.Want(f.Do("POST", httpapitest.RestorePath(id), f.Gateway, `{"action":"redo"}`), 409, "refused")
	if a, b := f.Read("a.txt"), f.Read("b.txt"); a != "two" || b != "bee" {
		t.Fatalf("after redoing all: a.txt %q b.txt %q", a, b)
	}

	// Every restore is on the trail.
	n, actions := 0, map[string]int{}
	if _, err := f.WS.Trail(context.Background(), id, func(line []byte) error {
		var e struct {
			Event   string `json:"event"`
			Action  string `json:"action"`
			Outcome string `json:"outcome"`
		}
		if json.Unmarshal(line, &e) == nil && e.Event == "session.snapshot_restore" && e.Outcome == "ok" {
			actions[e.Action]++
			n++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if n != 7 || actions["undo"] != 2 || actions["redo"] != 4 || actions["restore"] != 1 {
		t.Fatalf("trail has %d successful session.snapshot_restore lines %v, want 2 undo, 4 redo, 1 restore", n, actions)
	}
}

func TestServerResolve(t *testing.T) {
	f := httpapitest.NewFixture(t)
	id := f.Session(f.WS, "alpha one")
	other, err := f.Store.Workspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	far := f.Session(other, "far away")
	twin1 := f.Session(f.WS, "twin")
	twin2 := f.Session(other, "twin")

	check := func(ref, want string) {
		t.Helper()
		a := f.Do("GET", httpapitest.SnapshotsPath(ref), f.Gateway, "")
		f.Want(a, 200, "")
		var l engine.SnapshotList
		a.JSON(t, &l)
		if l.Session != want {
			t.Fatalf("%q resolved to %s, want %s", ref, l.Session, want)
		}
	}
	check(id, id)
	check(id[:8], id)
	check(strings.ToUpper(id), id)
	check("alpha%20one", id)
	check(far, far)          // another workspace
	check("far%20away", far) // by title, in another workspace
	f.Want(f.Do("GET", httpapitest.SnapshotsPath("twin"), f.Gateway, ""), 409, "ambiguous")
	f.Want(f.Do("GET", httpapitest.SnapshotsPath("alpha"), f.Gateway, ""), 404, "not_found") // a title is matched exactly

	// Ambiguity counts only the sessions the credential may see.
	tok := f.Pair([]string{httpapi.ScopeAttach}, twin2)
	a := f.Do("GET", httpapitest.SnapshotsPath("twin"), tok, "")
	f.Want(a, 200, "")
	var l engine.SnapshotList
	a.JSON(t, &l)
	if l.Session != twin2 {
		t.Fatalf("twin resolved to %s for a credential of %s (not %s)", l.Session, twin2, twin1)
	}
}

func TestServerErrors(t *testing.T) {
	f := httpapitest.NewFixture(t)
	id := f.Session(f.WS, "alpha")
	beta := f.Session(f.WS, "beta")

	unknown := f.Do("GET", httpapitest.SnapshotsPath("0badc0de-0000-4000-8000-000000000000"), f.Gateway, "")
	f.Want(unknown, 404, "not_found")

	t.Run("401", func(t *testing.T) {
		for _, tok := range []string{"", "wrong", f.Gateway + "x", strings.ToUpper(f.Gateway)} {
			a := f.Do("GET", httpapitest.SnapshotsPath(id), tok, "")
			f.Want(a, 401, "unauthorized")
			if h := a.Header.Get("WWW-Authenticate"); !strings.HasPrefix(h, "Bearer") {
				t.Fatalf("WWW-Authenticate %q", h)
			}
		}
		req, _ := http.NewRequest("GET", f.Srv.URL+httpapitest.SnapshotsPath(id), nil)
		req.Header.Set("Authorization", "Basic "+f.Gateway)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 401 {
			t.Fatalf("Basic auth: %d", resp.StatusCode)
		}
		// A restore with a wrong token changes nothing and says nothing.
		f.Want(f.Do("POST", httpapitest.RestorePath(id), "wrong", `{"action":"undo"}`), 401, "unauthorized")
	})

	t.Run("403", func(t *testing.T) {
		tok := f.Pair(nil, id)
		f.Want(f.Do("GET", httpapitest.SnapshotsPath(id), tok, ""), 403, "forbidden")
		f.Want(f.Do("POST", httpapitest.RestorePath(id), tok, `{}`), 403, "forbidden")
	})

	t.Run("404 outside the allowlist", func(t *testing.T) {
		tok := f.Pair([]string{httpapi.ScopeAttach}, id)
		f.Want(f.Do("GET", httpapitest.SnapshotsPath(id), tok, ""), 200, "")
		for _, ref := range []string{beta, beta[:8], "beta"} {
			for _, a := range []httpapitest.Answer{
				f.Do("GET", httpapitest.SnapshotsPath(ref), tok, ""),
				f.Do("POST", httpapitest.RestorePath(ref), tok, `{"action":"undo"}`),
			} {
				f.Want(a, 404, "not_found")
				if !bytes.Equal(a.Body, unknown.Body) {
					t.Fatalf("outside the allowlist %q, unknown %q", a.Body, unknown.Body)
				}
			}
		}
		// The gateway token sees it.
		f.Want(f.Do("GET", httpapitest.SnapshotsPath(beta), f.Gateway, ""), 200, "")
	})

	t.Run("400", func(t *testing.T) {
		for _, body := range []string{
			`{"action":"jump"}`,
			`{"action":"undo","id":"x"}`,
			`{"id":""}`,
			`{"bogus":1}`,
			`not json`,
			`[]`,
			`{"action":"undo"} {}`,
			`{"action":`,
			`{"ACTION":"redo"}`,
			`{"action":"undo","action":"redo"}`,
		} {
			f.Want(f.Do("POST", httpapitest.RestorePath(id), f.Gateway, body), 400, "bad_request")
		}
	})

	t.Run("413", func(t *testing.T) {
		body := `{"action":"undo"` + strings.Repeat(" ", httpapi.MaxRestoreBody) + `}`
		f.Want(f.Do("POST", httpapitest.RestorePath(id), f.Gateway, body), 413, "too_large")
	})

	t.Run("405", func(t *testing.T) {
		for _, c := range []struct{ method, path, allow string }{
			{"POST", httpapitest.SnapshotsPath(id), "GET, HEAD"},
			{"DELETE", httpapitest.SnapshotsPath(id), "GET, HEAD"},
			{"GET", httpapitest.RestorePath(id), "POST"},
			{"PUT", httpapitest.RestorePath(id), "POST"},
		} {
			a := f.Do(c.method, c.path, f.Gateway, "")
			f.Want(a, 405, "method_not_allowed")
			if got := a.Header.Get("Allow"); got != c.allow {
				t.Fatalf("%s %s: Allow %q, want %q", c.method, c.path, got, c.allow)
			}
		}
	})

	t.Run("409 busy", func(t *testing.T) {
		s, err := f.WS.Open(context.Background(), id, engine.SessionOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		a := f.Do("POST", httpapitest.RestorePath(id), f.Gateway, `{"action":"undo"}`)
		f.Want(a, 409, "busy")
		var e struct {
			PID int `json:"pid"`
		}
		a.JSON(t, &e)
		if e.PID != os.Getpid() {
			t.Fatalf("busy names pid %d, want %d: %s", e.PID, os.Getpid(), a.Body)
		}
	})

	t.Run("404 unknown path", func(t *testing.T) {
		f.Want(f.Do("GET", "/api/nothing", f.Gateway, ""), 404, "not_found")
		f.Want(f.Do("GET", "/api/nothing", "", ""), 401, "unauthorized")
	})
}

func TestServerTokenFiles(t *testing.T) {
	f := httpapitest.NewFixture(t)
	id := f.Session(f.WS, "alpha")
	name := filepath.Join(f.Home, httpapi.GatewayTokenFile)
	fi, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("gateway token mode %04o", fi.Mode().Perm())
	}
	again, _, err := httpapi.GatewayToken(f.Store)
	if err != nil || again != f.Gateway {
		t.Fatalf("second start: %q %v, want the same token", again, err)
	}
	if len(f.Gateway) != 64 {
		t.Fatalf("gateway token %q", f.Gateway)
	}

	// --token-file elsewhere.
	other := filepath.Join(t.TempDir(), "tok")
	tok, made, err := httpapi.TokenAt(other)
	if err != nil || !made || tok == f.Gateway {
		t.Fatalf("token file %s: %q %v %v", other, tok, made, err)
	}
	if fi, err := os.Stat(other); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file mode: %v %v", fi, err)
	}
	// A token file others can read is refused.
	loose := filepath.Join(t.TempDir(), "loose")
	if err := os.WriteFile(loose, []byte(strings.Repeat("a", 64)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := httpapi.TokenAt(loose); err == nil {
		t.Fatal("a 0644 token file was accepted")
	}

	// A paired credential: the file is 0600 and keeps the hash, never the token.
	paired := f.Pair([]string{httpapi.ScopeAttach}, id)
	cname := filepath.Join(f.Home, httpapi.CredentialsFile)
	fi, err = os.Stat(cname)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("credentials.json mode %04o", fi.Mode().Perm())
	}
	b, err := os.ReadFile(cname)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte(paired)) || !bytes.Contains(b, []byte(httpapi.HashToken(paired))) || !bytes.Contains(b, []byte(id)) {
		t.Fatalf("credentials.json: %s", b)
	}
	f.Want(f.Do("GET", httpapitest.SnapshotsPath(id), paired, ""), 200, "")
}

// tree is every file under dir and its content.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameTree(t *testing.T, what string, before, after map[string]string) {
	t.Helper()
	for name, b := range before {
		if a, ok := after[name]; !ok {
			t.Errorf("%s: %s is gone", what, name)
		} else if a != b {
			t.Errorf("%s: %s changed: %d bytes, then %d", what, name, len(b), len(a))
		}
	}
	for name := range after {
		if _, ok := before[name]; !ok {
			t.Errorf("%s: %s appeared", what, name)
		}
	}
}

// TestServerListReadsOnly: a GET of the snapshots takes no lock and writes
// nothing, so polling leaves every file as it was and works while another
// process owns the session.
func TestServerListReadsOnly(t *testing.T) {
	f := httpapitest.NewFixture(t)
	id := f.Session(f.WS, "alpha")
	f.Write(id, "a.txt", "one")
	f.Write(id, "a.txt", "two")
	list := func() engine.SnapshotList {
		t.Helper()
		a := f.Do("GET", httpapitest.SnapshotsPath(id), f.Gateway, "")
		f.Want(a, 200, "")
		var l engine.SnapshotList
		a.JSON(t, &l)
		if l.Session != id || len(l.Snapshots) != 2 {
			t.Fatalf("list: %s", a.Body)
		}
		return l
	}
	// The picker index may be brought up to date once, as by any listing.
	first := list()
	if first.Cursor != 2 {
		t.Fatalf("cursor %d, want 2", first.Cursor)
	}
	before := tree(t, f.Home)
	for range 5 {
		list()
	}
	sameTree(t, "five GETs", before, tree(t, f.Home))

	// Another process owns the session: a GET still answers, the same, and
	// leaves its files alone.
	s, err := f.WS.Open(context.Background(), id, engine.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	owned := tree(t, f.Home)
	if got := list(); got.Snapshots[0].ID != first.Snapshots[0].ID || got.Snapshots[1].ID != first.Snapshots[1].ID {
		t.Fatalf("list while owned: %+v, before %+v", got, first)
	}
	sameTree(t, "GET while owned", owned, tree(t, f.Home))
	// The owner still owns it, and can undo.
	if _, err := s.Undo(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := list(); got.Cursor != 1 || !got.Snapshots[0].Applied || got.Snapshots[1].Applied {
		t.Fatalf("list after the owner's undo: %+v", got)
	}
}

// TestServerWorkspaceMismatch: a workspace folder whose workspace.json names
// a path the folder does not belong to (another directory, a relative path)
// is not served: its sessions answer 409 damaged to a token that may see
// them, and nothing is ever restored into the path it names.
func TestServerWorkspaceMismatch(t *testing.T) {
	t.Chdir(t.TempDir()) // where a relative path would land
	f := httpapitest.NewFixture(t)
	id := f.Session(f.WS, "alpha")
	f.Write(id, "dropped.txt", "one")
	f.Write(id, "dropped.txt", "two")
	good, err := f.Store.Workspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	other := f.Session(good, "other")
	info := filepath.Join(f.WS.Folder(), "workspace.json")
	orig, err := os.ReadFile(info)
	if err != nil {
		t.Fatal(err)
	}
	victim := t.TempDir()
	tamper := func(p string) {
		t.Helper()
		b, _ := json.Marshal(map[string]any{"v": 1, "path": p, "created_at": "2026-01-01T00:00:00.000Z"})
		if err := os.WriteFile(info, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	untouched := func(what string) {
		t.Helper()
		if got := f.Read("dropped.txt"); got != "two" {
			t.Fatalf("%s: dropped.txt is %q", what, got)
		}
		for _, dir := range []string{victim, "rel"} {
			if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 || err != nil && !os.IsNotExist(err) {
				t.Fatalf("%s: %s holds %v (%v)", what, dir, ents, err)
			}
		}
	}
	refused := func(what string) {
		t.Helper()
		for _, a := range []httpapitest.Answer{
			f.Do("GET", httpapitest.SnapshotsPath(id), f.Gateway, ""),
			f.Do("POST", httpapitest.RestorePath(id), f.Gateway, `{"action":"undo"}`),
			f.Do("POST", httpapitest.RestorePath(id), f.Gateway, `{"action":"redo"}`),
		} {
			f.Want(a, 409, "damaged")
			if !strings.Contains(string(a.Body), id) || !strings.Contains(string(a.Body), f.WS.Key()) {
				t.Fatalf("%s: the refusal names neither the session nor its folder: %s", what, a.Body)
			}
		}
		untouched(what)
	}

	tamper(victim)
	refused("another directory")
	// By title it is not found: the folder's records are not read.
	f.Want(f.Do("GET", httpapitest.SnapshotsPath("alpha"), f.Gateway, ""), 404, "not_found")
	// A credential that may not see it gets the 404 of an unknown session.
	unknown := f.Do("GET", httpapitest.SnapshotsPath("0badc0de-0000-4000-8000-000000000000"), f.Gateway, "")
	tok := f.Pair([]string{httpapi.ScopeAttach}, other)
	if a := f.Do("POST", httpapitest.RestorePath(id), tok, ""); a.Status != 404 || !bytes.Equal(a.Body, unknown.Body) {
		t.Fatalf("outside the allowlist: %d %s", a.Status, a.Body)
	}
	f.Want(f.Do("GET", httpapitest.SnapshotsPath(other), tok, ""), 200, "")
	// The server's log says it once.
	if n := strings.Count(f.Log.String(), "not serving workspaces/"+f.WS.Key()); n != 1 {
		t.Fatalf("the log names the folder %d times: %s", n, f.Log.String())
	}

	// The path gets a folder of its own: that folder is served, the tampered
	// one still is not.
	vws, err := f.Store.Workspace(victim)
	if err != nil {
		t.Fatal(err)
	}
	vid := f.Session(vws, "victim's")
	f.Want(f.Do("GET", httpapitest.SnapshotsPath(vid), f.Gateway, ""), 200, "")
	refused("a directory with a folder of its own")

	tamper("rel/dir")
	refused("a relative path")
	tamper("/")
	refused("the root")

	// Put back, it is served again.
	if err := os.WriteFile(info, orig, 0o600); err != nil {
		t.Fatal(err)
	}
	f.Want(f.Do("POST", httpapitest.RestorePath(id), f.Gateway, `{"action":"undo"}`), 200, "")
	if got := f.Read("dropped.txt"); got != "one" {
		t.Fatalf("undo once the folder is whole again: dropped.txt %q", got)
	}

	// The directory is replaced by a link elsewhere: its old folder is not
	// served, and nothing is restored through the link.
	moved := filepath.Join(t.TempDir(), "moved")
	if err := os.Rename(f.Dir, moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(moved, f.Dir); err != nil {
		t.Fatal(err)
	}
	a := f.Do("POST", httpapitest.RestorePath(id), f.Gateway, `{"action":"redo"}`)
	f.Want(a, 409, "damaged")
	if !strings.Contains(string(a.Body), moved) {
		t.Fatalf("the refusal does not say where the link leads: %s", a.Body)
	}
	if b, err := os.ReadFile(filepath.Join(moved, "dropped.txt")); err != nil || string(b) != "one" {
		t.Fatalf("dropped.txt behind the link: %q %v", b, err)
	}
}

// TestServerDamagedCredentials: a credentials.json that cannot be read
// leaves the gateway token working; a paired token gets 503 with a clear
// reason, the log names the file once, and pairing fails naming it and
// writing nothing.
func TestServerDamagedCredentials(t *testing.T) {
	f := httpapitest.NewFixture(t)
	id := f.Session(f.WS, "alpha")
	f.Write(id, "a.txt", "one")
	paired := f.Pair([]string{httpapi.ScopeAttach}, id)
	name := filepath.Join(f.Home, httpapi.CredentialsFile)
	good, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	damaged := good[:len(good)/2]
	if err := os.WriteFile(name, damaged, 0o600); err != nil {
		t.Fatal(err)
	}

	f.Want(f.Do("GET", httpapitest.SnapshotsPath(id), f.Gateway, ""), 200, "")
	f.Want(f.Do("POST", httpapitest.RestorePath(id), f.Gateway, `{"action":"undo"}`), 200, "")
	if got := f.Read("a.txt"); got != "<absent>" {
		t.Fatalf("a.txt after the gateway's undo: %q", got)
	}
	for _, tok := range []string{paired, "wrong"} {
		a := f.Do("GET", httpapitest.SnapshotsPath(id), tok, "")
		f.Want(a, 503, "unavailable")
		if !strings.Contains(string(a.Body), "credentials.json is damaged") {
			t.Fatalf("503 body %s", a.Body)
		}
	}
	f.Want(f.Do("POST", httpapitest.RestorePath(id), paired, `{"action":"redo"}`), 503, "unavailable")
	if got := f.Read("a.txt"); got != "<absent>" {
		t.Fatalf("a.txt after a refused redo: %q", got)
	}
	f.Want(f.Do("GET", httpapitest.SnapshotsPath(id), "", ""), 401, "unauthorized")
	log := f.Log.String()
	if strings.Count(log, name) != 1 || !strings.Contains(log, "cairn pair") || !strings.Contains(log, "gateway token still works") {
		t.Fatalf("log %q", log)
	}

	// Pairing fails naming the file and writes nothing; httpapi.Fsck names it.
	if _, _, err := httpapi.Pair(context.Background(), f.Store, []string{httpapi.ScopeAttach}, []string{id}); !errors.Is(err, httpapi.ErrBadCredentials) ||
		!strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "cairn pair") {
		t.Fatalf("pair on a damaged credentials.json: %v", err)
	}
	if b, _ := os.ReadFile(name); !bytes.Equal(b, damaged) {
		t.Fatalf("pair changed the damaged file: %q", b)
	}
	if p := httpapi.Fsck(f.Store); len(p) != 1 || p[0].Path != httpapi.CredentialsFile {
		t.Fatalf("fsck: %+v", p)
	}

	// Put back, the paired token works again.
	if err := os.WriteFile(name, good, 0o600); err != nil {
		t.Fatal(err)
	}
	f.Want(f.Do("GET", httpapitest.SnapshotsPath(id), paired, ""), 200, "")
}
