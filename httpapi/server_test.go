package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"cairn/engine"
)

// serverFixture is a state folder with sessions in two workspaces and the
// `cairn serve` handler over it.
type serverFixture struct {
	t       *testing.T
	home    string
	store   *engine.Store
	dir     string // the first workspace's directory
	ws      *engine.Workspace
	gateway string
	srv     *httptest.Server
	log     *syncBuffer // the server's log
}

// syncBuffer is a bytes.Buffer the server's handlers and the test share.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func newServerFixture(t *testing.T) *serverFixture {
	t.Helper()
	f := &serverFixture{t: t, home: t.TempDir(), dir: t.TempDir()}
	s, err := engine.Open(f.home)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	f.store = s
	if f.ws, err = s.Workspace(f.dir); err != nil {
		t.Fatal(err)
	}
	if f.gateway, _, err = GatewayToken(s); err != nil {
		t.Fatal(err)
	}
	f.log = &syncBuffer{}
	f.srv = httptest.NewServer(NewStoreServer(s, f.gateway, f.log).Handler())
	t.Cleanup(f.srv.Close)
	return f
}

// session makes a recorded session titled title in ws and returns its id.
func (f *serverFixture) session(ws *engine.Workspace, title string) string {
	f.t.Helper()
	ctx := context.Background()
	s := ws.Create(engine.SessionOptions{})
	if _, err := s.Append(ctx, engine.Item{Type: engine.User, Text: "hello"}); err != nil {
		f.t.Fatal(err)
	}
	if err := s.EndTurn(ctx, engine.Turn{}); err != nil {
		f.t.Fatal(err)
	}
	if err := s.Rename(ctx, title); err != nil {
		f.t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		f.t.Fatal(err)
	}
	return s.ID()
}

// write changes file name of the workspace through the file tools, so the
// session gets a snapshot.
func (f *serverFixture) write(id, name, content string) {
	f.t.Helper()
	ctx := context.Background()
	s, err := f.ws.Open(ctx, id, engine.SessionOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.ToolWrite(ctx, name, []byte(content)); err != nil {
		f.t.Fatal(err)
	}
}

func (f *serverFixture) read(name string) string {
	f.t.Helper()
	b, err := os.ReadFile(filepath.Join(f.dir, name))
	if os.IsNotExist(err) {
		return "<absent>"
	}
	if err != nil {
		f.t.Fatal(err)
	}
	return string(b)
}

type answer struct {
	status int
	header http.Header
	body   []byte
}

func (a answer) json(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(a.body, v); err != nil {
		t.Fatalf("answer %d %q: %v", a.status, a.body, err)
	}
}

func (a answer) code(t *testing.T) string {
	t.Helper()
	var e struct {
		OK   bool   `json:"ok"`
		Code string `json:"code"`
	}
	a.json(t, &e)
	if e.OK {
		t.Fatalf("error answer with ok true: %s", a.body)
	}
	return e.Code
}

func do(t *testing.T, base, method, path, token, body string) answer {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{resp.StatusCode, resp.Header, b}
}

func (f *serverFixture) do(method, path, token, body string) answer {
	f.t.Helper()
	return do(f.t, f.srv.URL, method, path, token, body)
}

func (f *serverFixture) want(a answer, status int, code string) {
	f.t.Helper()
	if a.status != status {
		f.t.Fatalf("status %d, want %d: %s", a.status, status, a.body)
	}
	if code != "" {
		if got := a.code(f.t); got != code {
			f.t.Fatalf("code %q, want %q: %s", got, code, a.body)
		}
	}
}

func (f *serverFixture) pair(scopes []string, ids ...string) string {
	f.t.Helper()
	tok, _, err := Pair(context.Background(), f.store, scopes, ids)
	if err != nil {
		f.t.Fatal(err)
	}
	return tok
}

func snapshotsPath(ref string) string { return "/api/sessions/" + ref + "/snapshots" }
func restorePath(ref string) string   { return "/api/sessions/" + ref + "/snapshots/restore" }

func TestServerListAndRestore(t *testing.T) {
	f := newServerFixture(t)
	id := f.session(f.ws, "alpha")
	f.write(id, "a.txt", "one")
	f.write(id, "a.txt", "two")
	f.write(id, "b.txt", "bee")

	a := f.do("GET", snapshotsPath(id), f.gateway, "")
	f.want(a, 200, "")
	var l engine.SnapshotList
	a.json(t, &l)
	if !l.OK || l.Session != id || l.Cursor != 3 || len(l.Snapshots) != 3 {
		t.Fatalf("list: %s", a.body)
	}
	for _, s := range l.Snapshots {
		if !s.Applied || s.ID == "" || len(s.Files) != 1 {
			t.Fatalf("snapshot %+v in %s", s, a.body)
		}
	}
	first := l.Snapshots[0].ID
	if l.Snapshots[2].ID == first {
		t.Fatalf("list is not in order: %s", a.body)
	}

	// Undo: the default action, for an empty body and for {}.
	var r engine.RestoreResult
	a = f.do("POST", restorePath(id), f.gateway, "")
	f.want(a, 200, "")
	a.json(t, &r)
	if !r.OK || r.Action != "undo" || r.Cursor != 2 || len(r.Steps) != 1 || len(r.Steps[0].Removed) != 1 {
		t.Fatalf("undo: %s", a.body)
	}
	if got := f.read("b.txt"); got != "<absent>" {
		t.Fatalf("b.txt after undo: %q", got)
	}
	a = f.do("POST", restorePath(id), f.gateway, "{}")
	f.want(a, 200, "")
	r = engine.RestoreResult{}
	a.json(t, &r)
	if r.Action != "undo" || r.Cursor != 1 || len(r.Steps) != 1 || len(r.Steps[0].Restored) != 1 {
		t.Fatalf("undo {}: %s", a.body)
	}
	if got := f.read("a.txt"); got != "one" {
		t.Fatalf("a.txt after undo: %q", got)
	}

	// Redo puts "two" back.
	a = f.do("POST", restorePath(id), f.gateway, `{"action":"redo"}`)
	f.want(a, 200, "")
	r = engine.RestoreResult{}
	a.json(t, &r)
	if r.Action != "redo" || r.Cursor != 2 || len(r.Steps) != 1 {
		t.Fatalf("redo: %s", a.body)
	}
	if got := f.read("a.txt"); got != "two" {
		t.Fatalf("a.txt after redo: %q", got)
	}

	// Restore to the first snapshot undoes it and the one after it.
	a = f.do("POST", restorePath(id), f.gateway, `{"id":"`+first+`"}`)
	f.want(a, 200, "")
	r = engine.RestoreResult{}
	a.json(t, &r)
	if r.Action != "restore" || r.Cursor != 0 || len(r.Steps) != 2 {
		t.Fatalf("restore to %s: %s", first, a.body)
	}
	if got := f.read("a.txt"); got != "<absent>" {
		t.Fatalf("a.txt after restore to the first snapshot: %q", got)
	}

	// Nothing left to undo; an undone id and an unknown id are refused.
	f.want(f.do("POST", restorePath(id), f.gateway, `{"action":"undo"}`), 409, "refused")
	f.want(f.do("POST", restorePath(id), f.gateway, `{"id":"`+first+`"}`), 409, "refused")
	f.want(f.do("POST", restorePath(id), f.gateway, `{"id":"no-such-snapshot"}`), 409, "refused")
	if got := f.read("a.txt"); got != "<absent>" {
		t.Fatalf("a refused restore changed a.txt: %q", got)
	}

	// Redo all three, then there is nothing to redo.
	for range 3 {
		f.want(f.do("POST", restorePath(id), f.gateway, `{"action":"redo"}`), 200, "")
	}
	f.want(f.do("POST", restorePath(id), f.gateway, `{"action":"redo"}`), 409, "refused")
	if a, b := f.read("a.txt"), f.read("b.txt"); a != "two" || b != "bee" {
		t.Fatalf("after redoing all: a.txt %q b.txt %q", a, b)
	}

	// Every restore is on the trail.
	n, actions := 0, map[string]int{}
	if _, err := f.ws.Trail(context.Background(), id, func(line []byte) error {
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
	f := newServerFixture(t)
	id := f.session(f.ws, "alpha one")
	other, err := f.store.Workspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	far := f.session(other, "far away")
	twin1 := f.session(f.ws, "twin")
	twin2 := f.session(other, "twin")

	check := func(ref, want string) {
		t.Helper()
		a := f.do("GET", snapshotsPath(ref), f.gateway, "")
		f.want(a, 200, "")
		var l engine.SnapshotList
		a.json(t, &l)
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
	f.want(f.do("GET", snapshotsPath("twin"), f.gateway, ""), 409, "ambiguous")
	f.want(f.do("GET", snapshotsPath("alpha"), f.gateway, ""), 404, "not_found") // a title is matched exactly

	// Ambiguity counts only the sessions the credential may see.
	tok := f.pair([]string{ScopeAttach}, twin2)
	a := f.do("GET", snapshotsPath("twin"), tok, "")
	f.want(a, 200, "")
	var l engine.SnapshotList
	a.json(t, &l)
	if l.Session != twin2 {
		t.Fatalf("twin resolved to %s for a credential of %s (not %s)", l.Session, twin2, twin1)
	}
}

func TestServerErrors(t *testing.T) {
	f := newServerFixture(t)
	id := f.session(f.ws, "alpha")
	beta := f.session(f.ws, "beta")

	unknown := f.do("GET", snapshotsPath("0badc0de-0000-4000-8000-000000000000"), f.gateway, "")
	f.want(unknown, 404, "not_found")

	t.Run("401", func(t *testing.T) {
		for _, tok := range []string{"", "wrong", f.gateway + "x", strings.ToUpper(f.gateway)} {
			a := f.do("GET", snapshotsPath(id), tok, "")
			f.want(a, 401, "unauthorized")
			if h := a.header.Get("WWW-Authenticate"); !strings.HasPrefix(h, "Bearer") {
				t.Fatalf("WWW-Authenticate %q", h)
			}
		}
		req, _ := http.NewRequest("GET", f.srv.URL+snapshotsPath(id), nil)
		req.Header.Set("Authorization", "Basic "+f.gateway)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 401 {
			t.Fatalf("Basic auth: %d", resp.StatusCode)
		}
		// A restore with a wrong token changes nothing and says nothing.
		f.want(f.do("POST", restorePath(id), "wrong", `{"action":"undo"}`), 401, "unauthorized")
	})

	t.Run("403", func(t *testing.T) {
		tok := f.pair(nil, id)
		f.want(f.do("GET", snapshotsPath(id), tok, ""), 403, "forbidden")
		f.want(f.do("POST", restorePath(id), tok, `{}`), 403, "forbidden")
	})

	t.Run("404 outside the allowlist", func(t *testing.T) {
		tok := f.pair([]string{ScopeAttach}, id)
		f.want(f.do("GET", snapshotsPath(id), tok, ""), 200, "")
		for _, ref := range []string{beta, beta[:8], "beta"} {
			for _, a := range []answer{
				f.do("GET", snapshotsPath(ref), tok, ""),
				f.do("POST", restorePath(ref), tok, `{"action":"undo"}`),
			} {
				f.want(a, 404, "not_found")
				if !bytes.Equal(a.body, unknown.body) {
					t.Fatalf("outside the allowlist %q, unknown %q", a.body, unknown.body)
				}
			}
		}
		// The gateway token sees it.
		f.want(f.do("GET", snapshotsPath(beta), f.gateway, ""), 200, "")
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
			f.want(f.do("POST", restorePath(id), f.gateway, body), 400, "bad_request")
		}
	})

	t.Run("413", func(t *testing.T) {
		body := `{"action":"undo"` + strings.Repeat(" ", maxRestoreBody) + `}`
		f.want(f.do("POST", restorePath(id), f.gateway, body), 413, "too_large")
	})

	t.Run("405", func(t *testing.T) {
		for _, c := range []struct{ method, path, allow string }{
			{"POST", snapshotsPath(id), "GET, HEAD"},
			{"DELETE", snapshotsPath(id), "GET, HEAD"},
			{"GET", restorePath(id), "POST"},
			{"PUT", restorePath(id), "POST"},
		} {
			a := f.do(c.method, c.path, f.gateway, "")
			f.want(a, 405, "method_not_allowed")
			if got := a.header.Get("Allow"); got != c.allow {
				t.Fatalf("%s %s: Allow %q, want %q", c.method, c.path, got, c.allow)
			}
		}
	})

	t.Run("409 busy", func(t *testing.T) {
		s, err := f.ws.Open(context.Background(), id, engine.SessionOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		a := f.do("POST", restorePath(id), f.gateway, `{"action":"undo"}`)
		f.want(a, 409, "busy")
		var e struct {
			PID int `json:"pid"`
		}
		a.json(t, &e)
		if e.PID != os.Getpid() {
			t.Fatalf("busy names pid %d, want %d: %s", e.PID, os.Getpid(), a.body)
		}
	})

	t.Run("404 unknown path", func(t *testing.T) {
		f.want(f.do("GET", "/api/nothing", f.gateway, ""), 404, "not_found")
		f.want(f.do("GET", "/api/nothing", "", ""), 401, "unauthorized")
	})
}

func TestServerTokenFiles(t *testing.T) {
	f := newServerFixture(t)
	id := f.session(f.ws, "alpha")
	name := filepath.Join(f.home, GatewayTokenFile)
	fi, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("gateway token mode %04o", fi.Mode().Perm())
	}
	again, _, err := GatewayToken(f.store)
	if err != nil || again != f.gateway {
		t.Fatalf("second start: %q %v, want the same token", again, err)
	}
	if len(f.gateway) != 64 {
		t.Fatalf("gateway token %q", f.gateway)
	}

	// --token-file elsewhere.
	other := filepath.Join(t.TempDir(), "tok")
	tok, made, err := TokenAt(other)
	if err != nil || !made || tok == f.gateway {
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
	if _, _, err := TokenAt(loose); err == nil {
		t.Fatal("a 0644 token file was accepted")
	}

	// A paired credential: the file is 0600 and keeps the hash, never the token.
	paired := f.pair([]string{ScopeAttach}, id)
	cname := filepath.Join(f.home, CredentialsFile)
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
	if bytes.Contains(b, []byte(paired)) || !bytes.Contains(b, []byte(hashToken(paired))) || !bytes.Contains(b, []byte(id)) {
		t.Fatalf("credentials.json: %s", b)
	}
	f.want(f.do("GET", snapshotsPath(id), paired, ""), 200, "")
}

func TestRestoreBody(t *testing.T) {
	for body, want := range map[string]restoreRequest{
		"":                    {Action: "undo"},
		" \n":                 {Action: "undo"},
		"{}":                  {Action: "undo"},
		`{"action":"undo"}`:   {Action: "undo"},
		`{"action":"redo"}`:   {Action: "redo"},
		`{"id":"m2x1-9f3a"}`:  {Action: "restore", ID: "m2x1-9f3a"},
		" {\"id\":\"x\"} \n ": {Action: "restore", ID: "x"},
	} {
		got, err := decodeRestoreBody([]byte(body))
		if err != nil || got != want {
			t.Errorf("%q: %+v %v, want %+v", body, got, err, want)
		}
	}
	for _, body := range []string{
		`null`, `[]`, `"undo"`, `{"action":"UNDO"}`, `{"action":null}`, `{"action":""}`,
		`{"id":"a b"}`, `{"id":"\u0000"}`, `{"id":7}`, `{"id":""}`, `{"action":"redo","id":"x"}`,
		`{"x":1}`, `{}x`, `{"action":"undo"}{"action":"redo"}`,
		// Field names are exact and given once.
		`{"ACTION":"redo"}`, `{"Action":"undo"}`, `{"ID":"x"}`, `{"Id":"x"}`,
		`{"action":"undo","action":"redo"}`, `{"action":"redo","action":"redo"}`,
		`{"id":"a","id":"b"}`, `{"act\u0069on":"undo","action":"redo"}`,
		`{"action":"undo",}`, `{"action" "undo"}`,
	} {
		if got, err := decodeRestoreBody([]byte(body)); err == nil {
			t.Errorf("%q accepted as %+v", body, got)
		}
	}
}

func FuzzRestoreBody(f *testing.F) {
	for _, s := range []string{"", "{}", `{"action":"undo"}`, `{"action":"redo"}`, `{"id":"m2x1-9f3a2c7e"}`,
		`{"action":"undo","id":"x"}`, `{"action":1}`, "[", `{"id":"\ud800"}`, strings.Repeat("{", 100)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		req, err := decodeRestoreBody(b)
		if err != nil {
			if req != (restoreRequest{}) {
				t.Fatalf("error with a request: %+v", req)
			}
			return
		}
		var again []byte
		switch req.Action {
		case "undo", "redo":
			if req.ID != "" {
				t.Fatalf("%s with id %q", req.Action, req.ID)
			}
			again, _ = json.Marshal(map[string]string{"action": req.Action})
		case "restore":
			if req.ID == "" || !printable(req.ID) {
				t.Fatalf("restore with id %q", req.ID)
			}
			again, _ = json.Marshal(map[string]string{"id": req.ID})
		default:
			t.Fatalf("action %q", req.Action)
		}
		if back, err := decodeRestoreBody(again); err != nil || back != req {
			t.Fatalf("round trip %s: %+v %v, want %+v", again, back, err, req)
		}
	})
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
	f := newServerFixture(t)
	id := f.session(f.ws, "alpha")
	f.write(id, "a.txt", "one")
	f.write(id, "a.txt", "two")
	list := func() engine.SnapshotList {
		t.Helper()
		a := f.do("GET", snapshotsPath(id), f.gateway, "")
		f.want(a, 200, "")
		var l engine.SnapshotList
		a.json(t, &l)
		if l.Session != id || len(l.Snapshots) != 2 {
			t.Fatalf("list: %s", a.body)
		}
		return l
	}
	// The picker index may be brought up to date once, as by any listing.
	first := list()
	if first.Cursor != 2 {
		t.Fatalf("cursor %d, want 2", first.Cursor)
	}
	before := tree(t, f.home)
	for range 5 {
		list()
	}
	sameTree(t, "five GETs", before, tree(t, f.home))

	// Another process owns the session: a GET still answers, the same, and
	// leaves its files alone.
	s, err := f.ws.Open(context.Background(), id, engine.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	owned := tree(t, f.home)
	if got := list(); got.Snapshots[0].ID != first.Snapshots[0].ID || got.Snapshots[1].ID != first.Snapshots[1].ID {
		t.Fatalf("list while owned: %+v, before %+v", got, first)
	}
	sameTree(t, "GET while owned", owned, tree(t, f.home))
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
	f := newServerFixture(t)
	id := f.session(f.ws, "alpha")
	f.write(id, "dropped.txt", "one")
	f.write(id, "dropped.txt", "two")
	good, err := f.store.Workspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	other := f.session(good, "other")
	info := filepath.Join(f.ws.Folder(), "workspace.json")
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
		if got := f.read("dropped.txt"); got != "two" {
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
		for _, a := range []answer{
			f.do("GET", snapshotsPath(id), f.gateway, ""),
			f.do("POST", restorePath(id), f.gateway, `{"action":"undo"}`),
			f.do("POST", restorePath(id), f.gateway, `{"action":"redo"}`),
		} {
			f.want(a, 409, "damaged")
			if !strings.Contains(string(a.body), id) || !strings.Contains(string(a.body), f.ws.Key()) {
				t.Fatalf("%s: the refusal names neither the session nor its folder: %s", what, a.body)
			}
		}
		untouched(what)
	}

	tamper(victim)
	refused("another directory")
	// By title it is not found: the folder's records are not read.
	f.want(f.do("GET", snapshotsPath("alpha"), f.gateway, ""), 404, "not_found")
	// A credential that may not see it gets the 404 of an unknown session.
	unknown := f.do("GET", snapshotsPath("0badc0de-0000-4000-8000-000000000000"), f.gateway, "")
	tok := f.pair([]string{ScopeAttach}, other)
	if a := f.do("POST", restorePath(id), tok, ""); a.status != 404 || !bytes.Equal(a.body, unknown.body) {
		t.Fatalf("outside the allowlist: %d %s", a.status, a.body)
	}
	f.want(f.do("GET", snapshotsPath(other), tok, ""), 200, "")
	// The server's log says it once.
	if n := strings.Count(f.log.String(), "not serving workspaces/"+f.ws.Key()); n != 1 {
		t.Fatalf("the log names the folder %d times: %s", n, f.log.String())
	}

	// The path gets a folder of its own: that folder is served, the tampered
	// one still is not.
	vws, err := f.store.Workspace(victim)
	if err != nil {
		t.Fatal(err)
	}
	vid := f.session(vws, "victim's")
	f.want(f.do("GET", snapshotsPath(vid), f.gateway, ""), 200, "")
	refused("a directory with a folder of its own")

	tamper("rel/dir")
	refused("a relative path")
	tamper("/")
	refused("the root")

	// Put back, it is served again.
	if err := os.WriteFile(info, orig, 0o600); err != nil {
		t.Fatal(err)
	}
	f.want(f.do("POST", restorePath(id), f.gateway, `{"action":"undo"}`), 200, "")
	if got := f.read("dropped.txt"); got != "one" {
		t.Fatalf("undo once the folder is whole again: dropped.txt %q", got)
	}

	// The directory is replaced by a link elsewhere: its old folder is not
	// served, and nothing is restored through the link.
	moved := filepath.Join(t.TempDir(), "moved")
	if err := os.Rename(f.dir, moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(moved, f.dir); err != nil {
		t.Fatal(err)
	}
	a := f.do("POST", restorePath(id), f.gateway, `{"action":"redo"}`)
	f.want(a, 409, "damaged")
	if !strings.Contains(string(a.body), moved) {
		t.Fatalf("the refusal does not say where the link leads: %s", a.body)
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
	f := newServerFixture(t)
	id := f.session(f.ws, "alpha")
	f.write(id, "a.txt", "one")
	paired := f.pair([]string{ScopeAttach}, id)
	name := filepath.Join(f.home, CredentialsFile)
	good, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	damaged := good[:len(good)/2]
	if err := os.WriteFile(name, damaged, 0o600); err != nil {
		t.Fatal(err)
	}

	f.want(f.do("GET", snapshotsPath(id), f.gateway, ""), 200, "")
	f.want(f.do("POST", restorePath(id), f.gateway, `{"action":"undo"}`), 200, "")
	if got := f.read("a.txt"); got != "<absent>" {
		t.Fatalf("a.txt after the gateway's undo: %q", got)
	}
	for _, tok := range []string{paired, "wrong"} {
		a := f.do("GET", snapshotsPath(id), tok, "")
		f.want(a, 503, "unavailable")
		if !strings.Contains(string(a.body), "credentials.json is damaged") {
			t.Fatalf("503 body %s", a.body)
		}
	}
	f.want(f.do("POST", restorePath(id), paired, `{"action":"redo"}`), 503, "unavailable")
	if got := f.read("a.txt"); got != "<absent>" {
		t.Fatalf("a.txt after a refused redo: %q", got)
	}
	f.want(f.do("GET", snapshotsPath(id), "", ""), 401, "unauthorized")
	log := f.log.String()
	if strings.Count(log, name) != 1 || !strings.Contains(log, "cairn pair") || !strings.Contains(log, "gateway token still works") {
		t.Fatalf("log %q", log)
	}

	// Pairing fails naming the file and writes nothing; Fsck names it.
	if _, _, err := Pair(context.Background(), f.store, []string{ScopeAttach}, []string{id}); !errors.Is(err, ErrBadCredentials) ||
		!strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "cairn pair") {
		t.Fatalf("pair on a damaged credentials.json: %v", err)
	}
	if b, _ := os.ReadFile(name); !bytes.Equal(b, damaged) {
		t.Fatalf("pair changed the damaged file: %q", b)
	}
	if p := Fsck(f.store); len(p) != 1 || p[0].Path != CredentialsFile {
		t.Fatalf("fsck: %+v", p)
	}

	// Put back, the paired token works again.
	if err := os.WriteFile(name, good, 0o600); err != nil {
		t.Fatal(err)
	}
	f.want(f.do("GET", snapshotsPath(id), paired, ""), 200, "")
}
