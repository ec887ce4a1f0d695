package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"cairn/cli/cmdbase"
	"cairn/engine"
	"cairn/remotews"
	"cairn/remotews/host"
)

// heldWire is the REPL's side of the connection to the host: it counts
// the calls the REPL sends, by method, and while shut holds them, so that
// nothing reaches the host (and no answer comes) until it opens.
type heldWire struct {
	mu      sync.Mutex
	to      io.WriteCloser
	shut    bool
	held    bytes.Buffer
	methods map[string]int
	seen    chan string // each call's method, as it is sent
}

func (w *heldWire) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, line := range bytes.Split(bytes.TrimSuffix(p, []byte("\n")), []byte("\n")) {
		var m struct {
			ID     any    `json:"id"`
			Method string `json:"method"`
		}
		if json.Unmarshal(line, &m) == nil && m.Method != "" && m.ID != nil {
			w.methods[m.Method]++
			select {
			case w.seen <- m.Method:
			default:
			}
		}
	}
	if w.shut {
		return w.held.Write(p)
	}
	return w.to.Write(p)
}

func (w *heldWire) Close() error { return w.to.Close() }

func (w *heldWire) setShut(shut bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.shut = shut
	if !shut {
		_, _ = w.to.Write(w.held.Bytes())
		w.held.Reset()
	}
}

func (w *heldWire) count(method string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.methods[method]
}

// remoteREPL is a REPL whose file side is a host session on hostDir,
// served in this process over pipes through w.
func remoteREPL(t *testing.T, hostDir string, w *heldWire) (*repl, *bytes.Buffer) {
	t.Helper()
	hostStore, err := engine.Open(filepath.Join(t.TempDir(), "host-home"))
	if err != nil {
		t.Fatal(err)
	}
	c2h, c2hW := io.Pipe()
	h2c, h2cW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- host.Serve(context.Background(), c2h, h2cW, host.Options{Store: hostStore, Path: hostDir, Hostname: "testhost"})
	}()
	w.to = c2hW
	client, err := remotews.Connect(context.Background(), h2c, w, "testhost", hostDir, remotews.Options{})
	if err != nil {
		t.Fatal(err)
	}
	store, err := engine.Open(filepath.Join(t.TempDir(), "home"))
	if err != nil {
		t.Fatal(err)
	}
	dir, err := engine.Canonical(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, err := store.Workspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out, errw bytes.Buffer
	g := &Globals{Globals: cmdbase.Globals{Ctx: context.Background(), Stdout: &out, Stderr: &errw}}
	r := &repl{g: g, out: &out, errw: &errw, store: store, ws: ws}
	r.rc.client = client
	r.startNew()
	if r.rc.cell == nil || r.rc.cell.hs == nil {
		t.Fatalf("no host session: %s", out.String())
	}
	t.Cleanup(func() {
		r.closeSession()
		r.remoteEnd()
		<-served
		hostStore.Close()
		store.Close()
	})
	return r, &out
}

// A tool line on a remote workspace is its own turn in one round trip:
// the turn's end leaves right behind the tool's call, before the host
// has answered it. A refused tool's turn end is waited for with it, so
// the next line's end is its own.
func TestRemoteToolLineOneRoundTrip(t *testing.T) {
	hostDir, err := engine.Canonical(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := &heldWire{methods: map[string]int{}, seen: make(chan string, 64)}
	r, out := remoteREPL(t, hostDir, w)
	ctx := context.Background()

	lines := []struct {
		line, method, want, file string
	}{
		{":write a.txt\nhello", remotews.MethodToolWrite, "Changed a.txt", "hello\n"},
		{":edit a.txt hello goodbye", remotews.MethodToolEdit, "Changed a.txt", "goodbye\n"},
		{":edit a.txt absent other", remotews.MethodToolEdit, "the text to replace is not in a.txt", "goodbye\n"},
		{":rm a.txt", remotews.MethodToolRm, "a.txt", "<absent>"},
	}
	for _, l := range lines {
		out.Reset()
		for len(w.seen) > 0 {
			<-w.seen
		}
		tools, ends := w.count(l.method), w.count(remotews.MethodSessionCommit)
		w.setShut(true)
		done := make(chan struct{})
		go func() {
			r.handle(ctx, l.line)
			close(done)
		}()
		// Nothing reaches the host until the wire opens: the turn's end
		// must leave while the tool's answer cannot have come. The wait
		// is bounded only so that a line that waits for its answer first
		// fails the test instead of hanging it.
		sawEnd := false
		bound := time.After(10 * time.Second)
	wait:
		for {
			select {
			case m := <-w.seen:
				if m == remotews.MethodSessionCommit {
					sawEnd = true
					break wait
				}
			case <-bound:
				break wait
			}
		}
		w.setShut(false)
		<-done
		if !sawEnd {
			t.Fatalf("%q: the turn's end did not leave before the tool's answer (two round trips)", l.line)
		}
		if got := w.count(l.method) - tools; got != 1 {
			t.Fatalf("%q sent %d %s calls", l.line, got, l.method)
		}
		if got := w.count(remotews.MethodSessionCommit) - ends; got != 1 {
			t.Fatalf("%q sent %d turn ends", l.line, got)
		}
		if r.rc.cell.end != nil {
			t.Fatalf("%q left a turn end unwaited", l.line)
		}
		if !strings.Contains(out.String(), l.want) {
			t.Fatalf("%q printed %q", l.line, out.String())
		}
		got, err := os.ReadFile(filepath.Join(hostDir, "a.txt"))
		if os.IsNotExist(err) {
			got = []byte("<absent>")
		}
		if string(got) != l.file {
			t.Fatalf("after %q the host's a.txt holds %q, want %q", l.line, got, l.file)
		}
	}
}
