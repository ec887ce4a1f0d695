package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"cairn/engine"
	"cairn/httpapi"
)

// serverFixture is a state folder with sessions and the `cairn serve`
// handler over it, for the commands that run the HTTP API (the API itself
// is tested in package httpapi).
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
	if f.gateway, _, err = gatewayToken(s, ""); err != nil {
		t.Fatal(err)
	}
	f.log = &syncBuffer{}
	f.srv = httptest.NewServer(httpapi.NewStoreServer(s, f.gateway, f.log).Handler())
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
	tok, _, err := httpapi.Pair(context.Background(), f.store, scopes, ids)
	if err != nil {
		f.t.Fatal(err)
	}
	return tok
}

func snapshotsPath(ref string) string { return "/api/sessions/" + ref + "/snapshots" }
func restorePath(ref string) string   { return "/api/sessions/" + ref + "/snapshots/restore" }

// TestServerPairCommand pairs through the command line and resolves the
// session by title at pair time.
func TestServerPairCommand(t *testing.T) {
	f := newServerFixture(t)
	id := f.session(f.ws, "alpha")
	f.session(f.ws, "beta")
	var out, errw bytes.Buffer
	code := Main(context.Background(), []string{"--home", f.home, "--json", "pair", "--sessions", "alpha", "--scope", "attach"}, strings.NewReader(""), &out, &errw)
	if code != 0 {
		t.Fatalf("pair: exit %d: %s %s", code, out.String(), errw.String())
	}
	var p struct {
		Token    string   `json:"token"`
		Sessions []string `json:"sessions"`
		Scopes   []string `json:"scopes"`
	}
	if err := json.Unmarshal(out.Bytes(), &p); err != nil {
		t.Fatal(err)
	}
	if len(p.Sessions) != 1 || p.Sessions[0] != id || len(p.Scopes) != 1 || p.Scopes[0] != "attach" {
		t.Fatalf("pair answer %s", out.String())
	}
	f.want(f.do("GET", snapshotsPath("alpha"), p.Token, ""), 200, "")
	f.want(f.do("GET", snapshotsPath("beta"), p.Token, ""), 404, "not_found")

	out.Reset()
	errw.Reset()
	if code := Main(context.Background(), []string{"--home", f.home, "pair", "--sessions", "nobody", "--scope", "attach"}, strings.NewReader(""), &out, &errw); code != ExitFailed {
		t.Fatalf("pair with an unknown session: exit %d", code)
	}
	if code := Main(context.Background(), []string{"--home", f.home, "pair", "--sessions", id, "--scope", "root"}, strings.NewReader(""), &out, &errw); code != ExitUsage {
		t.Fatalf("pair with an unknown scope: exit %d", code)
	}
}

// TestServerServeCommand runs `cairn serve` until its context ends, and
// checks it refuses a non-loopback address without --allow-remote.
func TestServerServeCommand(t *testing.T) {
	f := newServerFixture(t)
	id := f.session(f.ws, "alpha")
	var out, errw bytes.Buffer
	for _, addr := range []string{"0.0.0.0:0", ":0", "example.com:80"} {
		if code := Main(context.Background(), []string{"--home", f.home, "serve", "--addr", addr}, strings.NewReader(""), &out, &errw); code != ExitUsage {
			t.Fatalf("serve --addr %s: exit %d", addr, code)
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan int)
	go func() {
		done <- Main(ctx, []string{"--home", f.home, "--json", "serve", "--addr", "127.0.0.1:0"}, strings.NewReader(""), pw, io.Discard)
		pw.Close()
	}()
	var banner struct {
		Addr      string `json:"addr"`
		TokenFile string `json:"token_file"`
	}
	line, err := bufio.NewReader(pr).ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, pr)
	if err := json.Unmarshal(line, &banner); err != nil {
		t.Fatalf("banner %q: %v", line, err)
	}
	if banner.TokenFile != filepath.Join(f.home, httpapi.GatewayTokenFile) {
		t.Fatalf("token file %s", banner.TokenFile)
	}
	a := do(t, "http://"+banner.Addr, "GET", snapshotsPath(id), f.gateway, "")
	if a.status != 200 {
		t.Fatalf("serve: %d %s", a.status, a.body)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("serve ended with exit %d", code)
	}
}

// TestServerListen runs the REPL with --listen: it serves its own live
// session, answers 404 for any other, and holds the session so `cairn serve`
// finds it busy.
func TestServerListen(t *testing.T) {
	f := newServerFixture(t)
	other := f.session(f.ws, "other")
	inR, inW := io.Pipe()
	errR, errW := io.Pipe()
	done := make(chan int)
	var out bytes.Buffer
	go func() {
		done <- Main(context.Background(), []string{"--home", f.home, "-C", f.dir, "--listen", "127.0.0.1:0"}, inR, &out, errW)
		errW.Close()
	}()
	sc := bufio.NewScanner(errR)
	var addr, id string
	for sc.Scan() {
		line := sc.Text()
		if _, rest, ok := strings.Cut(line, "serving the HTTP API for session "); ok {
			fields := strings.Fields(rest)
			id, addr = fields[0], strings.TrimPrefix(fields[2], "http://")
			break
		}
	}
	go io.Copy(io.Discard, errR)
	if addr == "" || id == "" {
		t.Fatal("no banner from --listen")
	}
	base := "http://" + addr
	// Each write returns once the REPL has read it, and the REPL reads the
	// next line only after it has handled the one before: the write of a
	// line says every line before it is done.
	say := func(lines ...string) {
		t.Helper()
		for _, l := range lines {
			if _, err := io.WriteString(inW, l+"\n"); err != nil {
				t.Fatal(err)
			}
		}
	}
	say("hello", "/help")

	a := do(t, base, "GET", snapshotsPath(id), f.gateway, "")
	if a.status != 200 {
		t.Fatalf("live list: %d %s", a.status, a.body)
	}
	var l engine.SnapshotList
	a.json(t, &l)
	if l.Session != id || len(l.Snapshots) != 0 {
		t.Fatalf("live list: %s", a.body)
	}
	a = do(t, base, "GET", snapshotsPath(id[:8]), f.gateway, "")
	if a.status != 200 {
		t.Fatalf("live list by prefix: %d %s", a.status, a.body)
	}
	a = do(t, base, "POST", restorePath(id), f.gateway, `{"action":"undo"}`)
	if a.status != 409 || a.code(t) != "refused" {
		t.Fatalf("live undo with nothing to undo: %d %s", a.status, a.body)
	}

	// A tool line of the REPL makes a snapshot; the API undoes and redoes it
	// in the live session.
	say(":write a.txt", "hi", ".", "/help")
	a = do(t, base, "GET", snapshotsPath(id), f.gateway, "")
	l = engine.SnapshotList{}
	a.json(t, &l)
	if a.status != 200 || l.Cursor != 1 || len(l.Snapshots) != 1 || l.Snapshots[0].Tool != "write" {
		t.Fatalf("live list after :write: %d %s", a.status, a.body)
	}
	if got := f.read("a.txt"); got != "hi\n" {
		t.Fatalf("a.txt after :write: %q", got)
	}
	a = do(t, base, "POST", restorePath(id), f.gateway, `{"action":"undo"}`)
	if a.status != 200 || f.read("a.txt") != "<absent>" {
		t.Fatalf("live undo: %d %s; a.txt %q", a.status, a.body, f.read("a.txt"))
	}
	a = do(t, base, "POST", restorePath(id), f.gateway, `{"action":"redo"}`)
	if a.status != 200 || f.read("a.txt") != "hi\n" {
		t.Fatalf("live redo: %d %s; a.txt %q", a.status, a.body, f.read("a.txt"))
	}
	a = do(t, base, "GET", snapshotsPath(other), f.gateway, "")
	if a.status != 404 || a.code(t) != "not_found" {
		t.Fatalf("another session through --listen: %d %s", a.status, a.body)
	}
	if a := do(t, base, "GET", snapshotsPath(id), "", ""); a.status != 401 {
		t.Fatalf("live without a token: %d", a.status)
	}
	// The REPL owns the session: `cairn serve` lists it from the journals
	// without taking it, and finds it busy for a restore.
	a = f.do("GET", snapshotsPath(id), f.gateway, "")
	f.want(a, 200, "")
	l = engine.SnapshotList{}
	a.json(t, &l)
	if l.Session != id || l.Cursor != 1 || len(l.Snapshots) != 1 || !l.Snapshots[0].Applied {
		t.Fatalf("serve's list of a session the REPL owns: %s", a.body)
	}
	f.want(f.do("POST", restorePath(id), f.gateway, `{"action":"undo"}`), 409, "busy")
	if got := f.read("a.txt"); got != "hi\n" {
		t.Fatalf("a.txt after a busy restore: %q", got)
	}

	inW.Close()
	if code := <-done; code != 0 {
		t.Fatalf("REPL exit %d", code)
	}
	// Once the REPL is gone, `cairn serve` has it.
	f.want(f.do("GET", snapshotsPath(id), f.gateway, ""), 200, "")
}

// TestServerServeSaysCredentialsDamaged: `cairn serve` starts on a damaged
// credentials.json and says so at once; the gateway token works.
func TestServerServeSaysCredentialsDamaged(t *testing.T) {
	f := newServerFixture(t)
	id := f.session(f.ws, "alpha")
	name := filepath.Join(f.home, httpapi.CredentialsFile)
	if err := os.WriteFile(name, []byte(`{"v":1,"credentials":[`), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	errw := &syncBuffer{}
	done := make(chan int)
	go func() {
		done <- Main(ctx, []string{"--home", f.home, "--json", "serve", "--addr", "127.0.0.1:0"}, strings.NewReader(""), pw, errw)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, pr)
	var banner struct {
		Addr string `json:"addr"`
	}
	if err := json.Unmarshal(line, &banner); err != nil {
		t.Fatalf("banner %q: %v", line, err)
	}
	if s := errw.String(); !strings.Contains(s, "credentials.json is damaged: "+name) || !strings.Contains(s, "gateway token still works") {
		t.Fatalf("serve's stderr at start: %q", s)
	}
	if a := do(t, "http://"+banner.Addr, "GET", snapshotsPath(id), f.gateway, ""); a.status != 200 {
		t.Fatalf("gateway token: %d %s", a.status, a.body)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("serve ended with exit %d", code)
	}
	if n := strings.Count(errw.String(), "is damaged"); n != 1 {
		t.Fatalf("said %d times: %s", n, errw.String())
	}
}

// TestPairAndFsckOnDamagedCredentials: on a credentials.json that cannot
// be read, `cairn pair` fails (exit 1) naming it and writing nothing, and
// `cairn storage fsck` names it.
func TestPairAndFsckOnDamagedCredentials(t *testing.T) {
	f := newServerFixture(t)
	id := f.session(f.ws, "alpha")
	f.pair([]string{httpapi.ScopeAttach}, id)
	name := filepath.Join(f.home, httpapi.CredentialsFile)
	good, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	damaged := good[:len(good)/2]
	if err := os.WriteFile(name, damaged, 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errw bytes.Buffer
	code := Main(context.Background(), []string{"--home", f.home, "pair", "--sessions", id, "--scope", "attach"}, strings.NewReader(""), &out, &errw)
	if code != ExitFailed || !strings.Contains(errw.String(), name) || !strings.Contains(errw.String(), "cairn pair") {
		t.Fatalf("pair on a damaged credentials.json: exit %d: %s", code, errw.String())
	}
	if b, _ := os.ReadFile(name); !bytes.Equal(b, damaged) {
		t.Fatalf("pair changed the damaged file: %q", b)
	}
	out.Reset()
	errw.Reset()
	if code := Main(context.Background(), []string{"--home", f.home, "--json", "storage", "fsck"}, strings.NewReader(""), &out, &errw); code != ExitFailed ||
		!strings.Contains(out.String(), `"path":"credentials.json"`) {
		t.Fatalf("fsck: exit %d: %s %s", code, out.String(), errw.String())
	}
	if err := os.WriteFile(name, good, 0o600); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if code := Main(context.Background(), []string{"--home", f.home, "--json", "storage", "fsck"}, strings.NewReader(""), &out, &errw); code != 0 {
		t.Fatalf("fsck with credentials.json put back: exit %d: %s", code, out.String())
	}
}

// TestSessionsAllNamesSkippedFolder: `sessions --all` says which workspace
// folder it skipped because its workspace.json names another directory.
func TestSessionsAllNamesSkippedFolder(t *testing.T) {
	f := newServerFixture(t)
	id := f.session(f.ws, "alpha")
	info := filepath.Join(f.ws.Folder(), "workspace.json")
	b, _ := json.Marshal(map[string]any{"v": 1, "path": t.TempDir(), "created_at": "2026-01-01T00:00:00.000Z"})
	if err := os.WriteFile(info, b, 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errw bytes.Buffer
	if code := Main(context.Background(), []string{"--home", f.home, "sessions", "--all"}, strings.NewReader(""), &out, &errw); code != 0 {
		t.Fatalf("sessions --all: exit %d: %s", code, errw.String())
	}
	if !strings.Contains(errw.String(), "skipped workspaces/"+f.ws.Key()+" (1 sessions)") || strings.Contains(out.String(), id) {
		t.Fatalf("sessions --all: %s\n%s", out.String(), errw.String())
	}
}
