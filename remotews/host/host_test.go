package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"cairn/engine"
	"cairn/internal/timefmt"
	"cairn/internal/usermsg"
	"cairn/remotews"
	"cairn/remotews/rpc"

	"github.com/google/uuid"
)

// env is a host state folder, a workspace on the host, and a way to
// connect to it in this process (the local transport).
type env struct {
	t    testing.TB
	ws   string // the workspace folder on the host
	home string // the host's state folder
}

func newEnv(t testing.TB) *env {
	t.Helper()
	root := t.TempDir()
	e := &env{t: t, ws: filepath.Join(root, "ws"), home: filepath.Join(root, "host-state")}
	if err := os.Mkdir(e.ws, 0o755); err != nil {
		t.Fatal(err)
	}
	return e
}

// connect starts a host over pipes and says hello to it. The host ends
// when the client closes; the returned wait reports Serve's error.
func (e *env) connect(opts remotews.Options) (*remotews.Client, func() error) {
	e.t.Helper()
	return e.connectVia(opts, nil)
}

// connectVia is connect with the client's side of the transport to the
// host wrapped by via (nil: as it is).
func (e *env) connectVia(opts remotews.Options, via func(io.WriteCloser) io.WriteCloser) (*remotews.Client, func() error) {
	e.t.Helper()
	store, err := engine.Open(e.home)
	if err != nil {
		e.t.Fatal(err)
	}
	c2h, c2hW := io.Pipe()
	h2c, h2cW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- Serve(context.Background(), c2h, h2cW, Options{Store: store, Path: e.ws, Hostname: "testhost"})
		store.Close()
	}()
	var toHost io.WriteCloser = c2hW
	if via != nil {
		toHost = via(c2hW)
	}
	c, err := remotews.Connect(context.Background(), h2c, toHost, "testhost", e.ws, opts)
	if err != nil {
		e.t.Fatalf("connect: %v", err)
	}
	var once sync.Once
	var serr error
	wait := func() error {
		once.Do(func() { c.Close(); serr = <-served })
		return serr
	}
	e.t.Cleanup(func() { _ = wait() })
	return c, wait
}

func (e *env) read(name string) string {
	b, err := os.ReadFile(filepath.Join(e.ws, name))
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

// The thin slice: a write and an undo for a client session, performed on
// the host with its engine, the bytes checked on the host's disk; the
// host session holds the change record in the host's state folder.
func TestWriteUndo(t *testing.T) {
	e := newEnv(t)
	c, wait := e.connect(remotews.Options{})
	w := c.Welcome
	if w.Host != "testhost" || w.Path != e.ws || w.Identity == "" || w.Generation != 1 || w.Why != "first" || !w.Moved {
		t.Fatalf("welcome %+v", w)
	}
	ctx := context.Background()
	sid := uuid.NewString()
	s, err := c.Session(ctx, sid, c.Binding(), false)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.ws, "a.txt"), []byte("before\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := s.Write(ctx, "", "", "a.txt", []byte("after\n"))
	if err != nil {
		t.Fatal(err)
	}
	if a.Snapshot == nil || len(a.Files) != 1 || e.read("a.txt") != "after\n" {
		t.Fatalf("write answered %+v, file %q", a, e.read("a.txt"))
	}
	if _, err := s.Write(ctx, "", "", "new.txt", bytes.Repeat([]byte("x"), 20<<10)); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	list, err := s.Snapshots(ctx)
	if err != nil || len(list.Snapshots) != 2 || list.Cursor != 2 {
		t.Fatalf("snapshots: %+v %v", list, err)
	}
	r, err := s.Undo(ctx)
	if err != nil || !r.OK || r.Action != "undo" {
		t.Fatalf("undo: %+v %v", r, err)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "new.txt")); !os.IsNotExist(err) {
		t.Fatalf("undo left new.txt: %v", err)
	}
	if _, err := s.Undo(ctx); err != nil || e.read("a.txt") != "before\n" {
		t.Fatalf("second undo: %v, a.txt %q", err, e.read("a.txt"))
	}
	// Nothing left to undo: refused, as locally (exit 3).
	if _, err := s.Undo(ctx); !errors.Is(err, engine.ErrRefused) {
		t.Fatalf("third undo: %v, want a refusal", err)
	}
	if _, err := s.Redo(ctx); err != nil || e.read("a.txt") != "after\n" {
		t.Fatalf("redo: %v, a.txt %q", err, e.read("a.txt"))
	}
	// A path outside the workspace is refused as bad input.
	if _, err := s.Write(ctx, "", "", "../escape.txt", []byte("x")); !errors.Is(err, engine.ErrBadInput) && !errors.Is(err, engine.ErrRefused) {
		t.Fatalf("escaping write: %v", err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(e.ws), "escape.txt")); !os.IsNotExist(err) {
		t.Fatal("a write reached outside the workspace")
	}
	hostSession := s.Opened.HostSession
	if err := wait(); err != nil {
		t.Fatalf("serve: %v", err)
	}
	// The change records are on the host, in the host session.
	store, err := engine.Open(e.home)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	hws, err := store.Workspace(e.ws)
	if err != nil {
		t.Fatal(err)
	}
	hl, err := hws.Snapshots(ctx, hostSession)
	if err != nil || len(hl.Snapshots) != 2 || hl.Cursor != 1 {
		t.Fatalf("host session's snapshots: %+v %v", hl, err)
	}
}

// A shell line's output arrives as it runs, before its answer; a cancel
// kills it there and the answer still comes.
func TestExecStreamCancel(t *testing.T) {
	e := newEnv(t)
	c, _ := e.connect(remotews.Options{})
	ctx := context.Background()
	s, err := c.Session(ctx, uuid.NewString(), c.Binding(), false)
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	a, err := s.Exec(ctx, "", "", "printf 'one\\n'; printf 'two\\n' >&2; echo three > made.txt", false, &out, &errOut)
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != "one\n" || errOut.String() != "two\n" || a.ExitCode != 0 || e.read("made.txt") != "three\n" {
		t.Fatalf("exec: out %q err %q answer %+v made %q", out.String(), errOut.String(), a, e.read("made.txt"))
	}
	if a.Snapshot == nil || len(a.Files) != 1 {
		t.Fatalf("the line's record: %+v", a)
	}

	// A line that runs until cancelled: cancel once it has printed.
	cctx, cancel := context.WithCancel(ctx)
	pr, pw := io.Pipe()
	go func() {
		buf := make([]byte, 64)
		n, _ := pr.Read(buf)
		if strings.Contains(string(buf[:n]), "started") {
			cancel()
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	done := make(chan struct{})
	var ca *engine.ExecAnswer
	var cerr error
	go func() {
		ca, cerr = s.Exec(cctx, "", "", "echo x > during.txt; echo started; sleep 600", false, pw, io.Discard)
		pw.Close()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("a cancelled line still runs")
	}
	if !errors.Is(cerr, context.Canceled) || ca == nil {
		t.Fatalf("cancelled exec: %v, want its answer and context.Canceled", cerr)
	}
	if ca.ExitCode == 0 || e.read("during.txt") != "x\n" || ca.Snapshot == nil {
		t.Fatalf("cancelled exec answered %+v, during.txt %q", ca, e.read("during.txt"))
	}
}

// The connection lost during a call: the call fails naming itself and the
// host; the host cancels the line and closes its sessions.
func TestLostMidCall(t *testing.T) {
	e := newEnv(t)
	store, err := engine.Open(e.home)
	if err != nil {
		t.Fatal(err)
	}
	c2h, c2hW := io.Pipe()
	h2c, h2cW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- Serve(context.Background(), c2h, h2cW, Options{Store: store, Path: e.ws})
		store.Close()
	}()
	c, err := remotews.Connect(context.Background(), h2c, c2hW, "testhost", e.ws, remotews.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	id := uuid.NewString()
	s, err := c.Session(ctx, id, c.Binding(), false)
	if err != nil {
		t.Fatal(err)
	}
	pr, pw := io.Pipe()
	go func() {
		buf := make([]byte, 64)
		_, _ = pr.Read(buf)
		// Cut the connection both ways, as a dead network would.
		h2cW.CloseWithError(errors.New("connection reset"))
		c2hW.CloseWithError(errors.New("connection reset"))
		_, _ = io.Copy(io.Discard, pr)
	}()
	_, err = s.Exec(ctx, "", "", "echo started; sleep 600", false, pw, io.Discard)
	var re *remotews.Error
	if !errors.Is(err, remotews.ErrLost) || !errors.As(err, &re) || !strings.Contains(err.Error(), "during exec") || !strings.Contains(err.Error(), "testhost") {
		t.Fatalf("lost call: %v", err)
	}
	// What a person reads shows none of cairn's insides.
	if leak := usermsg.Leak(usermsg.Error(err)); leak != "" {
		t.Fatalf("the lost call's message shows %q: %s", leak, usermsg.Error(err))
	}
	select {
	case err := <-served:
		if err == nil || !strings.Contains(err.Error(), "connection reset") {
			t.Fatalf("serve ended with %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the host did not end its line and its sessions")
	}
	b := c.Binding()
	c.Close()

	// The next connect finds out what became of the lost call before
	// anything else runs: the line was stopped, and its answer kept.
	c2, _ := e.connect(remotews.Options{})
	s2, err := c2.Session(ctx, id, b, false)
	if err != nil {
		t.Fatal(err)
	}
	p := s2.Opened.Pending
	if len(p) != 1 || p[0].Method != remotews.MethodExec || p[0].What != "echo started; sleep 600" || p[0].State != remotews.PendingSettled {
		t.Fatalf("pending after the lost connection = %+v", p)
	}
	var ans remotews.ExecResult
	if err := json.Unmarshal(p[0].Answer, &ans); err != nil || !ans.Cancelled {
		t.Fatalf("the lost line's kept answer = %s (%v), want it cancelled", p[0].Answer, err)
	}
	// Told once: a connect after that has nothing pending.
	if err := s2.Close(ctx); err != nil {
		t.Fatal(err)
	}
	s3, err := c2.Session(ctx, id, b, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(s3.Opened.Pending) != 0 {
		t.Fatalf("pending told twice: %+v", s3.Opened.Pending)
	}
}

// A call the host ended during (no end line) is interrupted, with the
// newest record made since it began; one that ended is pending until a
// later call or the close says the client had its answer (Had), and is
// then settled with its answer. A call sent before the answer of the one
// before came (pipelined) says nothing of that answer.
func TestPendingOf(t *testing.T) {
	at := func(s int) engine.Time { return timefmt.Mk(time.Unix(1800000000+int64(s), 0)) }
	t0, t5, t9 := at(0), at(5), at(9)
	lines := []callLine{
		{Seq: 1, Client: 1, Method: "tool.write", What: "a", Began: &t0}, {Seq: 1, End: "answered"},
		{Seq: 2, Client: 2, Had: 1, Method: "exec", What: "make", Began: &t5},
		{Seq: 3, Client: 3, Had: 1, Method: "tool.rm", What: "c", Began: &t9},
		{Seq: 4, Client: 4, Had: 1, Method: "tool.edit", What: "b", Began: &t9}, {Seq: 4, End: "answered", Answer: json.RawMessage(`{"ok":true}`)},
	}
	snaps := &engine.SnapshotList{Snapshots: []engine.SnapshotInfo{{ID: "s-old", At: t0}}, Records: []engine.RecordInfo{{ID: "r-make", At: at(6)}}}
	got := pendingOf(lines, snaps)
	if len(got) != 3 {
		t.Fatalf("pending = %+v", got)
	}
	if got[0].Seq != 2 || got[0].State != remotews.PendingInterrupted || got[0].Record != "r-make" {
		t.Errorf("interrupted with a record = %+v", got[0])
	}
	if got[1].Seq != 3 || got[1].State != remotews.PendingInterrupted || got[1].Record != "" {
		t.Errorf("interrupted with none = %+v", got[1])
	}
	if got[2].Seq != 4 || got[2].State != remotews.PendingSettled || string(got[2].Answer) != `{"ok":true}` {
		t.Errorf("settled = %+v", got[2])
	}
	// A close says the client had every answer; the calls the host was
	// still running stay interrupted.
	got = pendingOf(append(lines, callLine{Seq: 5, Had: 4, End: "closed"}), snaps)
	if len(got) != 2 || got[0].Seq != 2 || got[1].Seq != 3 {
		t.Errorf("after a close: %+v", got)
	}

	// Pipelined: calls 1-3 sent before any answer came (Had 0), all ran
	// and were answered, then the connection broke. None is known to have
	// reached the client: all three are told, settled.
	piped := []callLine{
		{Seq: 1, Client: 1, Method: "tool.write", What: "a", Began: &t0}, {Seq: 1, End: "answered", Answer: json.RawMessage(`{"n":1}`)},
		{Seq: 2, Client: 2, Method: "tool.write", What: "b", Began: &t0}, {Seq: 2, End: "answered", Answer: json.RawMessage(`{"n":2}`)},
		{Seq: 3, Client: 3, Method: "tool.write", What: "c", Began: &t0}, {Seq: 3, End: "unanswered", Answer: json.RawMessage(`{"n":3}`)},
	}
	got = pendingOf(piped, snaps)
	if len(got) != 3 || got[0].Seq != 1 || got[2].Seq != 3 || got[0].State != remotews.PendingSettled || string(got[1].Answer) != `{"n":2}` {
		t.Errorf("pipelined calls cut off = %+v", got)
	}
	// A fourth sent after the first answer came drops the first only.
	got = pendingOf(append(piped, callLine{Seq: 4, Client: 4, Had: 1, Method: "tool.rm", What: "d", Began: &t9}), snaps)
	if len(got) != 3 || got[0].Seq != 2 || got[1].Seq != 3 || got[2].Seq != 4 || got[2].State != remotews.PendingInterrupted {
		t.Errorf("after a call that had the first answer = %+v", got)
	}
}

// A session bound to another generation or identity is refused, naming
// what changed; one owned by another connection is busy.
func TestGenerationAndBusy(t *testing.T) {
	e := newEnv(t)
	c, wait := e.connect(remotews.Options{})
	ctx := context.Background()
	sid := uuid.NewString()
	old := c.Binding()
	s, err := c.Session(ctx, sid, old, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write(ctx, "", "", "f.txt", []byte("one")); err != nil {
		t.Fatal(err)
	}
	// A second connection cannot own the same session.
	c2, wait2 := e.connect(remotews.Options{})
	if _, err := c2.Session(ctx, sid, old, false); !errors.Is(err, engine.ErrBusy) {
		t.Fatalf("second owner: %v, want busy", err)
	}
	_ = wait2()
	if err := wait(); err != nil {
		t.Fatal(err)
	}

	// The workspace is replaced: deleted and made again.
	if err := os.RemoveAll(e.ws); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(e.ws, 0o755); err != nil {
		t.Fatal(err)
	}
	c3, _ := e.connect(remotews.Options{})
	if c3.Welcome.Generation != 2 || c3.Welcome.Why != "replaced" || c3.Welcome.Identity != old.Identity || !c3.Welcome.Moved {
		t.Fatalf("after the replacement: %+v", c3.Welcome)
	}
	_, err = c3.Session(ctx, sid, old, false)
	if !errors.Is(err, remotews.ErrGeneration) || !strings.Contains(err.Error(), "was replaced (generation 2") || !strings.Contains(err.Error(), "generation 1") {
		t.Fatalf("old generation: %v", err)
	}
	bad := old
	bad.Identity = uuid.NewString()
	bad.Generation = 2
	if _, err := c3.Session(ctx, sid, bad, false); !errors.Is(err, remotews.ErrGeneration) || !strings.Contains(err.Error(), "another workspace") {
		t.Fatalf("other identity: %v", err)
	}
	// Bound to the new generation, the session starts a file side of its
	// own: the old generation's snapshots are not there to undo.
	s3, err := c3.Session(ctx, sid, c3.Binding(), false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s3.Undo(ctx); !errors.Is(err, engine.ErrRefused) {
		t.Fatalf("undo on the new generation: %v, want nothing to undo", err)
	}
}

// The host lowers the limits the client asks for to its own, and says so.
func TestLimitsLowered(t *testing.T) {
	e := newEnv(t)
	if err := os.MkdirAll(e.home, 0o700); err != nil {
		t.Fatal(err)
	}
	store, err := engine.Open(e.home)
	if err != nil {
		t.Fatal(err)
	}
	store.Close()
	if err := os.WriteFile(filepath.Join(e.home, "config.json"), []byte(`{"snapshots":{"max_file_bytes":1000},"storage":{"snapshots":{"max_files":10}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	asked := remotews.LimitsOf(engine.DefaultConfig())
	c, _ := e.connect(remotews.Options{Limits: &asked})
	got := c.Welcome
	if got.Limits.MaxFileBytes != 1000 || got.Limits.RecordMaxFiles != 10 || got.Limits.MaxPerSession != asked.MaxPerSession {
		t.Fatalf("limits %+v", got.Limits)
	}
	names := []string{}
	for _, l := range got.Lowered {
		names = append(names, l.Name)
	}
	if strings.Join(names, ",") != "snapshots.max_file_bytes,storage.snapshots.max_files" {
		t.Fatalf("lowered %v", got.Lowered)
	}
}

// The limits the client asked for, lower than the host's own, are the
// ones its host sessions record under: a file over the client's
// snapshots.max_file_bytes is skipped, and one snapshot over the client's
// snapshots.max_per_session drops the oldest.
func TestClientLimitsApplied(t *testing.T) {
	e := newEnv(t)
	asked := remotews.LimitsOf(engine.DefaultConfig())
	asked.MaxFileBytes, asked.MaxPerSession = 100, 2
	c, _ := e.connect(remotews.Options{Limits: &asked})
	if c.Welcome.Limits.MaxFileBytes != 100 || c.Welcome.Limits.MaxPerSession != 2 || len(c.Welcome.Lowered) != 0 {
		t.Fatalf("welcome limits %+v lowered %v", c.Welcome.Limits, c.Welcome.Lowered)
	}
	ctx := context.Background()
	s, err := c.Session(ctx, uuid.NewString(), c.Binding(), false)
	if err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte("b"), 1000)
	if err := os.WriteFile(filepath.Join(e.ws, "big.txt"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := s.Write(ctx, "", "", "big.txt", []byte("small\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Skipped) != 1 {
		t.Fatalf("a 1,000-byte file under the client's 100-byte limit was captured: %+v", a)
	}
	for i := range 3 {
		if _, err := s.Write(ctx, "", "", fmt.Sprintf("f%d.txt", i), []byte("x\n")); err != nil {
			t.Fatal(err)
		}
	}
	list, err := s.Snapshots(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Snapshots) > 2 {
		t.Fatalf("%d snapshots kept under the client's max_per_session 2", len(list.Snapshots))
	}
}

// Calls before hello, a second hello, another protocol version, a path
// that is not there: each a clear error answer.
func TestHelloErrors(t *testing.T) {
	e := newEnv(t)
	store, err := engine.Open(e.home)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	raw := func(path string) *rpc.Conn {
		c2h, c2hW := io.Pipe()
		h2c, h2cW := io.Pipe()
		go func() { _ = Serve(context.Background(), c2h, h2cW, Options{Store: store, Path: path}) }()
		c := rpc.New(h2c, c2hW, rpc.Options{})
		t.Cleanup(func() { c.Close() })
		return c
	}
	ctx := context.Background()
	c := raw(e.ws)
	var we *rpc.Error
	if err := c.Call(ctx, remotews.MethodUndo, remotews.SessionRef{Session: uuid.NewString()}, nil); !errors.As(err, &we) || we.Code != remotews.CodeNotReady {
		t.Fatalf("call before hello: %v", err)
	}
	err = c.Call(ctx, remotews.MethodHello, remotews.Hello{Protocol: remotews.Protocol + 1, Format: engine.Format, Version: "9.9", Path: e.ws}, nil)
	if !errors.As(err, &we) || we.Code != remotews.CodeVersion || !strings.Contains(string(we.Data), fmt.Sprintf(`"protocol":%d`, remotews.Protocol)) {
		t.Fatalf("another protocol: %v", err)
	}
	hello := remotews.Hello{Protocol: remotews.Protocol, Format: engine.Format, Path: e.ws}
	if err := c.Call(ctx, remotews.MethodHello, hello, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctx, remotews.MethodHello, hello, nil); !errors.As(err, &we) || we.Code != remotews.CodeBadInput {
		t.Fatalf("second hello: %v", err)
	}
	if err := c.Call(ctx, remotews.MethodSessionOpen, remotews.SessionOpen{Session: "not-an-id"}, nil); !errors.As(err, &we) || we.Code != remotews.CodeBadInput {
		t.Fatalf("bad session id: %v", err)
	}
	if err := c.Call(ctx, remotews.MethodCallsPending, nil, nil); !errors.As(err, &we) || we.Code != -32601 {
		t.Fatalf("a method not served yet: %v", err)
	}

	missing := filepath.Join(e.ws, "nope")
	c = raw(missing)
	err = c.Call(ctx, remotews.MethodHello, remotews.Hello{Protocol: remotews.Protocol, Format: engine.Format, Path: missing}, nil)
	if !errors.As(err, &we) || we.Code != remotews.CodeNotFound || !strings.Contains(we.Message, "no folder "+missing) {
		t.Fatalf("missing folder: %v", err)
	}
}
