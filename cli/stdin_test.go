package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStdinReadStopsOnCancel: a plumbing call waiting for stdin that never
// comes (a terminal nobody types at, a producer that never writes) stops
// when its context is cancelled, as Ctrl-C cancels it, and changes nothing.
func TestStdinReadStopsOnCancel(t *testing.T) {
	e := newRefEnv(t)
	before := e.items(t)
	for _, args := range [][]string{
		{"tool", "--session", e.id, "write", "a.txt"},
		{"tool", "--session", e.id, "patch"},
		{"append", "--session", e.id, "--type", "assistant", "-"},
		{"prompt", "--session", e.id, "-"},
		{"turn", "--session", e.id, "--plan", "-"},
		{"output", "put", "--session", e.id},
	} {
		pr, pw := io.Pipe() // never written: a read waits until it is closed
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan int, 1)
		var o, errw bytes.Buffer
		go func() {
			done <- Main(ctx, append([]string{"--home", e.home, "-C", e.dir}, args...), pr, &o, &errw)
		}()
		cancel()
		select {
		case code := <-done:
			if code != ExitFailed || !strings.Contains(errw.String(), "context canceled") {
				t.Errorf("cairn %q: exit %d, stderr %q", args, code, errw.String())
			}
		case <-time.After(procGuard):
			t.Fatalf("cairn %q still waits for stdin after its context was cancelled", args)
		}
		pw.Close()
	}
	if got := e.items(t); got != before {
		t.Fatalf("the session holds %d items after the cancelled calls, had %d", got, before)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "a.txt")); !os.IsNotExist(err) {
		t.Fatalf("a.txt was written: %v", err)
	}
}

// TestCtxReaderReadsAll: read to its end, a ctxReader gives every byte of
// its reader, in order, however the reads are cut.
func TestCtxReaderReadsAll(t *testing.T) {
	want := bytes.Repeat([]byte("0123456789abcdef"), 10000) // several chunks
	r := &ctxReader{ctx: context.Background(), r: bytes.NewReader(want)}
	var got bytes.Buffer
	buf := make([]byte, 1000)
	for {
		n, err := r.Read(buf)
		got.Write(buf[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Fatalf("read %d bytes, want %d", got.Len(), len(want))
	}
}

// TestCtxReaderReadsNoMore: a ctxReader reads only what it is asked for:
// what a later reader of the same stdin is meant to get (the next call's
// answer at a terminal) stays where it is.
func TestCtxReaderReadsNoMore(t *testing.T) {
	src := strings.NewReader("n\ny\n")
	r := &ctxReader{ctx: context.Background(), r: src}
	buf := make([]byte, 2)
	if n, err := r.Read(buf); n != 2 || err != nil || string(buf) != "n\n" {
		t.Fatalf("read %q, %d, %v", buf[:n], n, err)
	}
	if src.Len() != 2 {
		t.Fatalf("%d bytes left in the source, want 2: it read ahead", src.Len())
	}
}
