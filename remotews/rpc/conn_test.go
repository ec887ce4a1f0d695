package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// pair connects two Conns by pipes; the second serves h.
func pair(t *testing.T, h Handler) (client, server *Conn) {
	t.Helper()
	r1, w1 := io.Pipe()
	r2, w2 := io.Pipe()
	client = New(r2, w1, Options{})
	server = New(r1, w2, Options{Handler: h})
	t.Cleanup(func() { client.Close(); server.Close() })
	return client, server
}

type echoParams struct {
	N    int    `json:"n"`
	Text string `json:"text"`
}

func TestCalls(t *testing.T) {
	client, _ := pair(t, func(ctx context.Context, in *Incoming) (any, error) {
		var p echoParams
		if err := json.Unmarshal(in.Params, &p); err != nil {
			return nil, err
		}
		return echoParams{N: p.N * 2, Text: strings.ToUpper(p.Text)}, nil
	})
	var wg sync.WaitGroup
	errs := make(chan error, 50)
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var got echoParams
			if err := client.Call(context.Background(), "echo", echoParams{N: i, Text: fmt.Sprint("x", i)}, &got); err != nil {
				errs <- err
				return
			}
			if got.N != 2*i || got.Text != fmt.Sprint("X", i) {
				errs <- fmt.Errorf("call %d answered %+v", i, got)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestErrorObject(t *testing.T) {
	client, _ := pair(t, func(ctx context.Context, in *Incoming) (any, error) {
		switch in.Method {
		case "typed":
			return nil, fmt.Errorf("wrapped: %w", &Error{Code: -32042, Message: "refused: nothing to undo", Data: json.RawMessage(`{"kind":"refused"}`)})
		default:
			return nil, errors.New("plain failure")
		}
	})
	err := client.Call(context.Background(), "typed", nil, nil)
	var we *Error
	if !errors.As(err, &we) || we.Code != -32042 || we.Message != "refused: nothing to undo" || string(we.Data) != `{"kind":"refused"}` {
		t.Fatalf("typed error: %#v", err)
	}
	err = client.Call(context.Background(), "plain", nil, nil)
	if !errors.As(err, &we) || we.Code != -32603 || we.Message != "plain failure" {
		t.Fatalf("plain error: %#v", err)
	}
	client2, _ := pair(t, nil)
	err = client2.Call(context.Background(), "nothing", nil, nil)
	if !errors.As(err, &we) || we.Code != -32601 {
		t.Fatalf("no handler: %#v", err)
	}
}

// A call's notifications reach OnNotify in order, all before the answer.
func TestCallNotifications(t *testing.T) {
	client, _ := pair(t, func(ctx context.Context, in *Incoming) (any, error) {
		for i := range 100 {
			if err := in.Notify("out", map[string]int{"i": i}); err != nil {
				return nil, err
			}
		}
		return "done", nil
	})
	var got []int
	var res string
	err := client.Call(context.Background(), "run", nil, &res, OnNotify(func(method string, params json.RawMessage) {
		var p map[string]int
		if method != "out" || json.Unmarshal(params, &p) != nil {
			t.Errorf("notification %s %s", method, params)
		}
		got = append(got, p["i"])
	}))
	if err != nil || res != "done" {
		t.Fatalf("call: %v %q", err, res)
	}
	if len(got) != 100 {
		t.Fatalf("%d notifications before the answer, want 100", len(got))
	}
	for i, n := range got {
		if n != i {
			t.Fatalf("notification %d says %d", i, n)
		}
	}
}

// A cancelled call is still answered, with what the handler did.
func TestCancel(t *testing.T) {
	started := make(chan struct{})
	client, _ := pair(t, func(ctx context.Context, in *Incoming) (any, error) {
		close(started)
		<-ctx.Done()
		return "stopped: " + ctx.Err().Error(), nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	var res string
	if err := client.Call(ctx, "long", nil, &res); err != nil {
		t.Fatal(err)
	}
	if res != "stopped: context canceled" {
		t.Fatalf("answer %q", res)
	}
}

// When the connection goes, a waiting call fails naming itself, and the
// handler on the other side is cancelled.
func TestLost(t *testing.T) {
	started := make(chan struct{})
	handlerEnded := make(chan error, 1)
	client, server := pair(t, func(ctx context.Context, in *Incoming) (any, error) {
		close(started)
		<-ctx.Done()
		handlerEnded <- ctx.Err()
		return nil, ctx.Err()
	})
	go func() { <-started; server.Close() }()
	err := client.Call(context.Background(), "tool.write", nil, nil)
	var lost *LostError
	if !errors.As(err, &lost) || lost.Method != "tool.write" || !strings.Contains(err.Error(), "tool.write") {
		t.Fatalf("call over a lost connection: %v", err)
	}
	select {
	case err := <-handlerEnded:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("handler ended with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the handler was not cancelled")
	}
	if err := server.Wait(); !errors.Is(err, ErrClosed) {
		t.Fatalf("server Wait: %v", err)
	}
	// A call after the end fails at once.
	if err := client.Call(context.Background(), "undo", nil, nil); !errors.As(err, &lost) || lost.Method != "undo" {
		t.Fatalf("call after the end: %v", err)
	}
}

type readCloser struct{ io.Reader }

func (readCloser) Close() error { return nil }

type discard struct{ bytes.Buffer }

func (*discard) Close() error { return nil }

// A line that is not JSON-RPC ends the connection and names the line.
func TestProtocolError(t *testing.T) {
	c := New(readCloser{strings.NewReader("Welcome to the dev box!\n")}, &discard{}, Options{})
	<-c.Done()
	var pe *ProtocolError
	if err := c.Err(); !errors.As(err, &pe) || string(pe.Line) != "Welcome to the dev box!" {
		t.Fatalf("garbage line: %v", err)
	}
	long := strings.Repeat("x", 100) + "\n"
	c = New(readCloser{strings.NewReader(long)}, &discard{}, Options{MaxLine: 50})
	<-c.Done()
	if err := c.Err(); !errors.As(err, &pe) || !strings.Contains(err.Error(), "over 50 bytes") {
		t.Fatalf("long line: %v", err)
	}
	c = New(readCloser{strings.NewReader(`{"jsonrpc":"2.0","id":1,"result":1}`)}, &discard{}, Options{})
	<-c.Done()
	if err := c.Err(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("torn last message: %v", err)
	}
}

// At the end of the input the handlers under way are cancelled, and Wait
// returns nil once they have returned.
func TestWaitAtEnd(t *testing.T) {
	r, w := io.Pipe()
	out := &discard{}
	var mu sync.Mutex
	started := make(chan struct{})
	var returned bool
	c := New(r, nopWC{out, &mu}, Options{Handler: func(ctx context.Context, in *Incoming) (any, error) {
		close(started)
		<-ctx.Done()
		time.Sleep(10 * time.Millisecond)
		mu.Lock()
		returned = true
		mu.Unlock()
		return "ok", nil
	}})
	fmt.Fprintln(w, `{"jsonrpc":"2.0","id":7,"method":"x"}`)
	<-started
	w.Close()
	if err := c.Wait(); err != nil {
		t.Fatalf("Wait: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !returned {
		t.Fatal("Wait returned before the handler")
	}
}

type nopWC struct {
	b  *discard
	mu *sync.Mutex
}

func (n nopWC) Write(p []byte) (int, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.b.Write(p)
}
func (nopWC) Close() error { return nil }

func FuzzRead(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"a","params":{}}` + "\n"))
	f.Add([]byte(`{"jsonrpc":"2.0","method":"$/cancel","params":{"id":1}}` + "\n"))
	f.Add([]byte(`{"jsonrpc":"2.0","method":"n","params":{"call":3,"params":[]}}` + "\n"))
	f.Add([]byte(`{"jsonrpc":"2.0","id":"s","error":{"code":1,"message":"m"}}` + "\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		out := &discard{}
		var mu sync.Mutex
		c := New(readCloser{bytes.NewReader(b)}, nopWC{out, &mu}, Options{Handler: func(ctx context.Context, in *Incoming) (any, error) {
			return in.Method, in.Notify("x", 1)
		}})
		_ = c.Wait()
	})
}

// gate holds what is written to it until open, then passes it on: a
// transport on which nothing reaches the peer before the test says so.
type gate struct {
	mu    sync.Mutex
	held  bytes.Buffer
	lines int
	to    io.WriteCloser // nil while shut
}

func (g *gate) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.to != nil {
		return g.to.Write(p)
	}
	g.lines += bytes.Count(p, []byte("\n"))
	return g.held.Write(p)
}

func (g *gate) Close() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.to != nil {
		return g.to.Close()
	}
	return nil
}

func (g *gate) open(to io.WriteCloser) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.to = to
	_, err := to.Write(g.held.Bytes())
	return err
}

// Calls sent with Go leave before any answer has come (the peer has not
// seen one of them when the last is sent), and the peer's ordered calls
// run one at a time in the order they were sent, whatever the scheduler
// does: each answer says how many ran before it.
func TestGoPipelinedInOrder(t *testing.T) {
	const n = 200
	r1, w1 := io.Pipe()
	r2, w2 := io.Pipe()
	g := &gate{}
	client := New(r2, g, Options{})
	var mu sync.Mutex
	var ran []int
	running := 0
	server := New(r1, w2, Options{Ordered: true, Handler: func(ctx context.Context, in *Incoming) (any, error) {
		var k int
		if err := json.Unmarshal(in.Params, &k); err != nil {
			return nil, err
		}
		mu.Lock()
		running++
		if running > 1 {
			mu.Unlock()
			return nil, fmt.Errorf("call %d ran beside another", k)
		}
		ran = append(ran, k)
		done := len(ran)
		mu.Unlock()
		time.Sleep(time.Duration(k%3) * time.Microsecond)
		mu.Lock()
		running--
		mu.Unlock()
		return done, nil
	}})
	t.Cleanup(func() { client.Close(); server.Close() })
	sent := make([]*Sent, n)
	for k := range n {
		sent[k] = client.Go(context.Background(), "step", k)
	}
	if g.lines != n {
		t.Fatalf("%d calls reached the transport before any answer, want %d", g.lines, n)
	}
	if err := g.open(w1); err != nil {
		t.Fatal(err)
	}
	for k, s := range sent {
		var done int
		if err := s.Wait(&done); err != nil {
			t.Fatalf("call %d: %v", k, err)
		}
		if done != k+1 {
			t.Fatalf("call %d ran %d-th", k, done)
		}
	}
}

// An ordered call the connection's end finds not begun is not run, and
// its caller is told the connection was lost.
func TestOrderedNotBegunAtEnd(t *testing.T) {
	r1, w1 := io.Pipe()
	r2, w2 := io.Pipe()
	client := New(r2, w1, Options{})
	started, queued := make(chan struct{}), make(chan struct{})
	var mu sync.Mutex
	var ran []string
	server := New(r1, w2, Options{Ordered: true, queued: func(m string) {
		if m == "second" {
			close(queued) // read, and queued behind the first
		}
	}, Handler: func(ctx context.Context, in *Incoming) (any, error) {
		mu.Lock()
		ran = append(ran, in.Method)
		mu.Unlock()
		if in.Method == "first" {
			close(started)
			<-ctx.Done()
		}
		return nil, nil
	}})
	t.Cleanup(func() { client.Close() })
	first := client.Go(context.Background(), "first", nil)
	<-started
	second := client.Go(context.Background(), "second", nil)
	<-queued
	server.Close()
	var lost *LostError
	if err := first.Wait(nil); !errors.As(err, &lost) {
		t.Fatalf("first: %v", err)
	}
	if err := second.Wait(nil); !errors.As(err, &lost) || lost.Method != "second" {
		t.Fatalf("second: %v", err)
	}
	_ = server.Wait()
	mu.Lock()
	defer mu.Unlock()
	if len(ran) != 1 || ran[0] != "first" {
		t.Fatalf("ran %v, want only the first", ran)
	}
}
