package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cairn/engine"
	"cairn/httpapi"
	"cairn/httpapi/httpapitest"
)

// TestServerPairCommand pairs through the command line and resolves the
// session by title at pair time.
func TestServerPairCommand(t *testing.T) {
	f := httpapitest.NewFixture(t)
	id := f.Session(f.WS, "alpha")
	f.Session(f.WS, "beta")
	var out, errw bytes.Buffer
	code := Main(context.Background(), []string{"--home", f.Home, "--json", "pair", "--sessions", "alpha", "--scope", "attach"}, strings.NewReader(""), &out, &errw)
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
	f.Want(f.Do("GET", httpapitest.SnapshotsPath("alpha"), p.Token, ""), 200, "")
	f.Want(f.Do("GET", httpapitest.SnapshotsPath("beta"), p.Token, ""), 404, "not_found")

	out.Reset()
	errw.Reset()
	if code := Main(context.Background(), []string{"--home", f.Home, "pair", "--sessions", "nobody", "--scope", "attach"}, strings.NewReader(""), &out, &errw); code != ExitFailed {
		t.Fatalf("pair with an unknown session: exit %d", code)
	}
	if code := Main(context.Background(), []string{"--home", f.Home, "pair", "--sessions", id, "--scope", "root"}, strings.NewReader(""), &out, &errw); code != ExitUsage {
		t.Fatalf("pair with an unknown scope: exit %d", code)
	}
}

// TestServerServeCommand runs `cairn serve` until its context ends, and
// checks it refuses a non-loopback address without --allow-remote.
func TestServerServeCommand(t *testing.T) {
	f := httpapitest.NewFixture(t)
	id := f.Session(f.WS, "alpha")
	var out, errw bytes.Buffer
	for _, addr := range []string{"0.0.0.0:0", ":0", "example.com:80"} {
		if code := Main(context.Background(), []string{"--home", f.Home, "serve", "--addr", addr}, strings.NewReader(""), &out, &errw); code != ExitUsage {
			t.Fatalf("serve --addr %s: exit %d", addr, code)
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan int)
	go func() {
		done <- Main(ctx, []string{"--home", f.Home, "--json", "serve", "--addr", "127.0.0.1:0"}, strings.NewReader(""), pw, io.Discard)
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
	if banner.TokenFile != filepath.Join(f.Home, httpapi.GatewayTokenFile) {
		t.Fatalf("token file %s", banner.TokenFile)
	}
	a := httpapitest.Do(t, "http://"+banner.Addr, "GET", httpapitest.SnapshotsPath(id), f.Gateway, "")
	if a.Status != 200 {
		t.Fatalf("serve: %d %s", a.Status, a.Body)
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
	f := httpapitest.NewFixture(t)
	other := f.Session(f.WS, "other")
	inR, inW := io.Pipe()
	errR, errW := io.Pipe()
	done := make(chan int)
	var out bytes.Buffer
	go func() {
		done <- Main(context.Background(), []string{"--home", f.Home, "-C", f.Dir, "--listen", "127.0.0.1:0"}, inR, &out, errW)
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

	a := httpapitest.Do(t, base, "GET", httpapitest.SnapshotsPath(id), f.Gateway, "")
	if a.Status != 200 {
		t.Fatalf("live list: %d %s", a.Status, a.Body)
	}
	var l engine.SnapshotList
	a.JSON(t, &l)
	if l.Session != id || len(l.Snapshots) != 0 {
		t.Fatalf("live list: %s", a.Body)
	}
	a = httpapitest.Do(t, base, "GET", httpapitest.SnapshotsPath(id[:8]), f.Gateway, "")
	if a.Status != 200 {
		t.Fatalf("live list by prefix: %d %s", a.Status, a.Body)
	}
	a = httpapitest.Do(t, base, "POST", httpapitest.RestorePath(id), f.Gateway, `{"action":"undo"}`)
	if a.Status != 409 || a.Code(t) != "refused" {
		t.Fatalf("live undo with nothing to undo: %d %s", a.Status, a.Body)
	}

	// A tool line of the REPL makes a snapshot; the API undoes and redoes it
	// in the live session.
	say(":write a.txt", "hi", ".", "/help")
	a = httpapitest.Do(t, base, "GET", httpapitest.SnapshotsPath(id), f.Gateway, "")
	l = engine.SnapshotList{}
	a.JSON(t, &l)
	if a.Status != 200 || l.Cursor != 1 || len(l.Snapshots) != 1 || l.Snapshots[0].Tool != "write" {
		t.Fatalf("live list after :write: %d %s", a.Status, a.Body)
	}
	if got := f.Read("a.txt"); got != "hi\n" {
		t.Fatalf("a.txt after :write: %q", got)
	}
	a = httpapitest.Do(t, base, "POST", httpapitest.RestorePath(id), f.Gateway, `{"action":"undo"}`)
	if a.Status != 200 || f.Read("a.txt") != "<absent>" {
		t.Fatalf("live undo: %d %s; a.txt %q", a.Status, a.Body, f.Read("a.txt"))
	}
	a = httpapitest.Do(t, base, "POST", httpapitest.RestorePath(id), f.Gateway, `{"action":"redo"}`)
	if a.Status != 200 || f.Read("a.txt") != "hi\n" {
		t.Fatalf("live redo: %d %s; a.txt %q", a.Status, a.Body, f.Read("a.txt"))
	}
	a = httpapitest.Do(t, base, "GET", httpapitest.SnapshotsPath(other), f.Gateway, "")
	if a.Status != 404 || a.Code(t) != "not_found" {
		t.Fatalf("another session through --listen: %d %s", a.Status, a.Body)
	}
	if a := httpapitest.Do(t, base, "GET", httpapitest.SnapshotsPath(id), "", ""); a.Status != 401 {
		t.Fatalf("live without a token: %d", a.Status)
	}
	// The REPL owns the session: `cairn serve` lists it from the journals
	// without taking it, and finds it busy for a restore.
	a = f.Do("GET", httpapitest.SnapshotsPath(id), f.Gateway, "")
	f.Want(a, 200, "")
	l = engine.SnapshotList{}
	a.JSON(t, &l)
	if l.Session != id || l.Cursor != 1 || len(l.Snapshots) != 1 || !l.Snapshots[0].Applied {
		t.Fatalf("serve's list of a session the REPL owns: %s", a.Body)
	}
	f.Want(f.Do("POST", httpapitest.RestorePath(id), f.Gateway, `{"action":"undo"}`), 409, "busy")
	if got := f.Read("a.txt"); got != "hi\n" {
		t.Fatalf("a.txt after a busy restore: %q", got)
	}

	inW.Close()
	if code := <-done; code != 0 {
		t.Fatalf("REPL exit %d", code)
	}
	// The person at the REPL was told of each restore the API made.
	for _, want := range []string{
		"An HTTP API client changed this session's files:\nUndid ",
		"An HTTP API client changed this session's files:\nRedid ",
	} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("the REPL did not say %q:\n%s", want, out.String())
		}
	}
	// Once the REPL is gone, `cairn serve` has it.
	f.Want(f.Do("GET", httpapitest.SnapshotsPath(id), f.Gateway, ""), 200, "")
}

// TestServerServeSaysCredentialsDamaged: `cairn serve` starts on a damaged
// credentials.json and says so at once; the gateway token works.
func TestServerServeSaysCredentialsDamaged(t *testing.T) {
	f := httpapitest.NewFixture(t)
	id := f.Session(f.WS, "alpha")
	name := filepath.Join(f.Home, httpapi.CredentialsFile)
	if err := os.WriteFile(name, []byte(`{"v":1,"credentials":[`), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	errw := &httpapitest.SyncBuffer{}
	done := make(chan int)
	go func() {
		done <- Main(ctx, []string{"--home", f.Home, "--json", "serve", "--addr", "127.0.0.1:0"}, strings.NewReader(""), pw, errw)
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
	if a := httpapitest.Do(t, "http://"+banner.Addr, "GET", httpapitest.SnapshotsPath(id), f.Gateway, ""); a.Status != 200 {
		t.Fatalf("gateway token: %d %s", a.Status, a.Body)
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
	f := httpapitest.NewFixture(t)
	id := f.Session(f.WS, "alpha")
	f.Pair([]string{httpapi.ScopeAttach}, id)
	name := filepath.Join(f.Home, httpapi.CredentialsFile)
	good, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	damaged := good[:len(good)/2]
	if err := os.WriteFile(name, damaged, 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errw bytes.Buffer
	code := Main(context.Background(), []string{"--home", f.Home, "pair", "--sessions", id, "--scope", "attach"}, strings.NewReader(""), &out, &errw)
	if code != ExitFailed || !strings.Contains(errw.String(), name) || !strings.Contains(errw.String(), "cairn pair") {
		t.Fatalf("pair on a damaged credentials.json: exit %d: %s", code, errw.String())
	}
	if b, _ := os.ReadFile(name); !bytes.Equal(b, damaged) {
		t.Fatalf("pair changed the damaged file: %q", b)
	}
	out.Reset()
	errw.Reset()
	if code := Main(context.Background(), []string{"--home", f.Home, "--json", "storage", "fsck"}, strings.NewReader(""), &out, &errw); code != ExitFailed ||
		!strings.Contains(out.String(), `"path":"credentials.json"`) {
		t.Fatalf("fsck: exit %d: %s %s", code, out.String(), errw.String())
	}
	if err := os.WriteFile(name, good, 0o600); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if code := Main(context.Background(), []string{"--home", f.Home, "--json", "storage", "fsck"}, strings.NewReader(""), &out, &errw); code != 0 {
		t.Fatalf("fsck with credentials.json put back: exit %d: %s", code, out.String())
	}
}

// TestSessionsAllNamesSkippedFolder: `sessions --all` says which workspace
// folder it skipped because its workspace.json names another directory.
func TestSessionsAllNamesSkippedFolder(t *testing.T) {
	f := httpapitest.NewFixture(t)
	id := f.Session(f.WS, "alpha")
	info := filepath.Join(f.WS.Folder(), "workspace.json")
	b, _ := json.Marshal(map[string]any{"v": 1, "path": t.TempDir(), "created_at": "2026-01-01T00:00:00.000Z"})
	if err := os.WriteFile(info, b, 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errw bytes.Buffer
	if code := Main(context.Background(), []string{"--home", f.Home, "sessions", "--all"}, strings.NewReader(""), &out, &errw); code != 0 {
		t.Fatalf("sessions --all: exit %d: %s", code, errw.String())
	}
	if !strings.Contains(errw.String(), "skipped workspaces/"+f.WS.Key()+" (1 session)") || strings.Contains(out.String(), id) {
		t.Fatalf("sessions --all: %s\n%s", out.String(), errw.String())
	}
}
