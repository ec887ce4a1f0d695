// Package rpc is one JSON-RPC 2.0 connection over a pair of byte streams,
// such as the standard input and output of an ssh command: calls both
// ways, notifications, notifications that belong to a call (a shell
// line's output as it runs), and cancellation.
//
// # Framing
//
// One message a line: its JSON (which never holds a raw newline), then
// "\n". The messages are the MCP SDK's (package jsonrpc): its encoder and
// decoder, its ids and its error object; the connection around them is
// this package's, as the SDK keeps its own internal.
//
// # Words
//
//   - call: a request with an id; the peer answers it once.
//   - notification: a request without an id; nothing answers it.
//   - call notification: a notification that belongs to a call under way,
//     sent by the side that runs the call before its answer, so that it
//     arrives before the answer (the first line below).
//   - cancel: the notification that asks the peer to stop a call it runs
//     (its handler's context is cancelled); the call is still answered,
//     with what the handler returns (the second line below).
//
// The two notifications of this package, part of the wire format:
//
//	{"jsonrpc":"2.0","method":M,"params":{"call":ID,"params":P}}
//	{"jsonrpc":"2.0","method":"$/cancel","params":{"id":ID}}
//
// # Ends
//
// The connection ends when its input ends or fails, when a line is not a
// JSON-RPC message (ProtocolError: a login shell that prints a banner on
// stdout is the usual cause), when a write fails, or at Close. Then every
// call waiting for an answer returns a *LostError naming the call, and
// every handler still running has its context cancelled; Wait returns
// once they have all returned.
package rpc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Methods of this package, part of the wire format.
const (
	// MethodCancel asks the peer to stop the call with the id in params.
	MethodCancel = "$/cancel"
)

// MaxLine is the longest line read by default: a file of
// the largest size cairn records (100 MiB), base64, with room to spare.
const MaxLine = 160 << 20

// Errors of the package.
var (
	// ErrClosed: the connection has ended; nothing more is sent.
	ErrClosed = errors.New("rpc: connection closed")
)

// LostError is the error of a call whose connection ended before its
// answer came: the call may or may not have run on the other side.
type LostError struct {
	Method string
	Err    error // why the connection ended
}

func (e *LostError) Error() string {
	return fmt.Sprintf("rpc: the connection ended during %s, before its answer: %v", e.Method, e.Err)
}

func (e *LostError) Unwrap() error { return e.Err }

// ProtocolError is a line that is not a JSON-RPC message.
type ProtocolError struct {
	Line []byte // its first 200 bytes
	Err  error
}

func (e *ProtocolError) Error() string {
	return fmt.Sprintf("rpc: not a JSON-RPC message: %q: %v", e.Line, e.Err)
}

func (e *ProtocolError) Unwrap() error { return e.Err }

// Error is the error object of an answer (code, message, data), as the
// MCP SDK spells it.
type Error = jsonrpc.Error

// Handler runs a call or takes a notification from the peer. A call's
// answer is what it returns: the result (marshalled to JSON), or the error
// (an *Error is sent as it is; any other error as an internal error with
// its text). A notification's result is dropped.
type Handler func(ctx context.Context, in *Incoming) (any, error)

// Incoming is a call or notification from the peer.
type Incoming struct {
	Method string
	Params json.RawMessage
	id     jsonrpc.ID
	conn   *Conn
}

// IsCall says whether the peer waits for an answer.
func (in *Incoming) IsCall() bool { return in.id.IsValid() }

// Notify sends a call notification for this call: the peer's Call hands
// it to its OnNotify before it returns the answer. On a notification it
// does nothing.
func (in *Incoming) Notify(method string, params any) error {
	if !in.IsCall() {
		return nil
	}
	p, err := json.Marshal(params)
	if err != nil {
		return err
	}
	return in.conn.send(&jsonrpc.Request{Method: method, Params: mustJSON(callNote{Call: in.id.Raw(), Params: p})})
}

// callNote is a call notification's params.
type callNote struct {
	Call   any             `json:"call"`
	Params json.RawMessage `json:"params"`
}

type cancelParams struct {
	ID any `json:"id"`
}

// Options set up a connection.
type Options struct {
	// Handler answers the peer's calls and takes its notifications; nil
	// answers every call with "method not found".
	Handler Handler
	// MaxLine is the longest line read (MaxLine when 0).
	MaxLine int
	// Ordered runs the peer's calls one at a time in the order they
	// arrived, each answered before the next begins, so that a peer may
	// send several without waiting (Go) and have them run as if it had.
	// false: each runs at once, on its own goroutine.
	Ordered bool

	// queued, when set, is told of each ordered call put in the queue
	// (for tests).
	queued func(method string)
}

// Conn is a JSON-RPC connection.
type Conn struct {
	r     *bufio.Reader
	w     io.WriteCloser
	rc    io.Closer
	opts  Options
	wmu   sync.Mutex // one message written at a time
	mu    sync.Mutex // the fields below
	next  int64
	calls map[jsonrpc.ID]*pending
	// running are the peer's calls under way, by id: their cancel.
	running  map[jsonrpc.ID]context.CancelFunc
	err      error // why the connection ended, once it has
	done     chan struct{}
	handlers sync.WaitGroup
	base     context.Context
	stop     context.CancelFunc
	// queue holds the ordered calls not begun yet; one goroutine runs
	// them while it is not empty (queueing says it is running).
	queue    []func()
	queueing bool
}

type pending struct {
	method string
	notify func(method string, params json.RawMessage)
	answer chan *jsonrpc.Response
}

// New starts a connection reading messages from r and writing them to w,
// and starts reading. Close closes both.
func New(r io.ReadCloser, w io.WriteCloser, opts Options) *Conn {
	if opts.MaxLine == 0 {
		opts.MaxLine = MaxLine
	}
	c := &Conn{r: bufio.NewReaderSize(r, 64<<10), w: w, rc: r, opts: opts,
		calls: map[jsonrpc.ID]*pending{}, running: map[jsonrpc.ID]context.CancelFunc{},
		done: make(chan struct{})}
	c.base, c.stop = context.WithCancel(context.Background())
	go c.read()
	return c
}

// CallOption changes one call.
type CallOption func(*pending)

// OnNotify hands the call notifications of the call to fn, in the order
// they were sent, each before the call returns. fn runs on the reading
// goroutine: it must not block for long, nor call the connection.
func OnNotify(fn func(method string, params json.RawMessage)) CallOption {
	return func(p *pending) { p.notify = fn }
}

// Call sends a call and waits for its answer, decoding its result into
// result (unless nil). When ctx ends first, Call sends a cancel and goes
// on waiting: the peer answers a cancelled call too, with what it did,
// and that is what Call returns. Only the end of the connection stops the
// wait (a *LostError).
func (c *Conn) Call(ctx context.Context, method string, params, result any, opts ...CallOption) error {
	return c.Go(ctx, method, params, opts...).Wait(result)
}

// Sent is a call sent whose answer Wait waits for.
type Sent struct {
	c      *Conn
	p      *pending
	err    error // the call could not be sent
	cancel func() bool
}

// Go sends a call and returns without waiting for its answer, so that a
// caller can send several before the first answer comes (pipelining):
// the peer runs them as its Options.Ordered says. ctx ending before the
// answer sends a cancel, as for Call.
func (c *Conn) Go(ctx context.Context, method string, params any, opts ...CallOption) *Sent {
	p := &pending{method: method, answer: make(chan *jsonrpc.Response, 1)}
	for _, o := range opts {
		o(p)
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return &Sent{c: c, p: p, err: fmt.Errorf("rpc: %s: %w", method, err)}
	}
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return &Sent{c: c, p: p, err: &LostError{Method: method, Err: err}}
	}
	c.next++
	id, _ := jsonrpc.MakeID(float64(c.next))
	c.calls[id] = p
	c.mu.Unlock()
	if err := c.send(&jsonrpc.Request{ID: id, Method: method, Params: raw}); err != nil {
		c.forget(id)
		return &Sent{c: c, p: p, err: &LostError{Method: method, Err: err}}
	}
	s := &Sent{c: c, p: p}
	s.cancel = context.AfterFunc(ctx, func() {
		// A failed send ends the connection, which answers the call.
		_ = c.send(&jsonrpc.Request{Method: MethodCancel, Params: mustJSON(cancelParams{ID: id.Raw()})})
	})
	return s
}

// Wait waits for the call's answer and decodes its result into result
// (unless nil). It is called once.
func (s *Sent) Wait(result any) error {
	if s.err != nil {
		return s.err
	}
	a := <-s.p.answer
	s.cancel()
	if a == nil {
		return &LostError{Method: s.p.method, Err: s.c.Err()}
	}
	if a.Error != nil {
		return a.Error
	}
	if result != nil {
		if err := json.Unmarshal(a.Result, result); err != nil {
			return fmt.Errorf("rpc: the answer to %s: %w", s.p.method, err)
		}
	}
	return nil
}

// Notify sends a notification.
func (c *Conn) Notify(method string, params any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	return c.send(&jsonrpc.Request{Method: method, Params: raw})
}

func (c *Conn) forget(id jsonrpc.ID) {
	c.mu.Lock()
	delete(c.calls, id)
	c.mu.Unlock()
}

func (c *Conn) send(m jsonrpc.Message) error {
	b, err := encode(m)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if err := c.Err(); err != nil {
		return err
	}
	if _, err := c.w.Write(b); err != nil {
		c.end(fmt.Errorf("rpc: write: %w", err))
		return err
	}
	return nil
}

// Err is why the connection ended; nil while it runs.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Done is closed when the connection has ended.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Close ends the connection: the calls waiting for answers fail, the
// handlers under way are cancelled. It does not wait for them (Wait does).
func (c *Conn) Close() error {
	c.end(ErrClosed)
	return nil
}

// Wait waits for the connection to end and for every handler to return,
// and returns why it ended (nil when its input simply ended).
func (c *Conn) Wait() error {
	<-c.done
	c.handlers.Wait()
	err := c.Err()
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// end ends the connection once, with err.
func (c *Conn) end(err error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = err
	calls := c.calls
	c.calls = map[jsonrpc.ID]*pending{}
	c.mu.Unlock()
	c.stop()
	_ = c.w.Close()
	_ = c.rc.Close()
	for _, p := range calls {
		p.answer <- nil
	}
	close(c.done)
}

func (c *Conn) read() {
	for {
		line, err := c.readLine()
		if err != nil {
			c.end(err)
			return
		}
		if len(line) == 0 {
			continue
		}
		m, err := jsonrpc.DecodeMessage(line)
		if err != nil {
			c.end(&ProtocolError{Line: clip(line), Err: err})
			return
		}
		switch m := m.(type) {
		case *jsonrpc.Response:
			c.mu.Lock()
			p := c.calls[m.ID]
			delete(c.calls, m.ID)
			c.mu.Unlock()
			if p != nil {
				p.answer <- m
			}
		case *jsonrpc.Request:
			c.incoming(m)
		}
	}
}

// readLine reads one line without its "\n", refusing one over MaxLine.
func (c *Conn) readLine() ([]byte, error) {
	var line []byte
	for {
		frag, err := c.r.ReadSlice('\n')
		if len(line)+len(frag) > c.opts.MaxLine {
			return nil, &ProtocolError{Line: clip(append(line, frag...)), Err: fmt.Errorf("a line over %d bytes", c.opts.MaxLine)}
		}
		line = append(line, frag...)
		switch {
		case err == nil:
			return line[:len(line)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(line) > 0:
			return nil, fmt.Errorf("rpc: the input ended inside a message: %w", io.ErrUnexpectedEOF)
		default:
			return nil, err
		}
	}
}

func clip(b []byte) []byte {
	if len(b) > 200 {
		b = b[:200]
	}
	return append([]byte(nil), b...)
}

func (c *Conn) incoming(m *jsonrpc.Request) {
	if !m.IsCall() {
		switch m.Method {
		case MethodCancel:
			var p cancelParams
			if json.Unmarshal(m.Params, &p) == nil {
				if id, err := jsonrpc.MakeID(p.ID); err == nil {
					c.mu.Lock()
					cancel := c.running[id]
					c.mu.Unlock()
					if cancel != nil {
						cancel()
					}
				}
			}
			return
		}
		var cn callNote
		if json.Unmarshal(m.Params, &cn) == nil && cn.Call != nil {
			if id, err := jsonrpc.MakeID(cn.Call); err == nil {
				c.mu.Lock()
				p := c.calls[id]
				c.mu.Unlock()
				if p != nil {
					if p.notify != nil {
						p.notify(m.Method, cn.Params)
					}
					return
				}
			}
		}
		if c.opts.Handler != nil {
			// Notifications are taken in order, on the reading goroutine.
			_, _ = c.opts.Handler(c.base, &Incoming{Method: m.Method, Params: m.Params, conn: c})
		}
		return
	}
	ctx, cancel := context.WithCancel(c.base)
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		cancel()
		return
	}
	if _, dup := c.running[m.ID]; dup {
		c.mu.Unlock()
		cancel()
		c.answer(m.ID, nil, &Error{Code: jsonrpc.CodeInvalidRequest, Message: "a call with this id is under way"})
		return
	}
	c.running[m.ID] = cancel
	c.handlers.Add(1)
	run := func() {
		defer c.handlers.Done()
		defer func() {
			c.mu.Lock()
			delete(c.running, m.ID)
			c.mu.Unlock()
			cancel()
		}()
		if c.opts.Handler == nil {
			c.answer(m.ID, nil, &Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found: " + m.Method})
			return
		}
		res, err := c.opts.Handler(ctx, &Incoming{Method: m.Method, Params: m.Params, id: m.ID, conn: c})
		c.answer(m.ID, res, err)
	}
	if !c.opts.Ordered {
		c.mu.Unlock()
		go run()
		return
	}
	c.queue = append(c.queue, func() {
		// A call the connection's end finds not begun is not run: its
		// caller has a LostError, and nothing of it happened.
		if c.Err() != nil {
			c.handlers.Done()
			c.mu.Lock()
			delete(c.running, m.ID)
			c.mu.Unlock()
			cancel()
			return
		}
		run()
	})
	if !c.queueing {
		c.queueing = true
		go c.runQueue()
	}
	c.mu.Unlock()
	if c.opts.queued != nil {
		c.opts.queued(m.Method)
	}
}

// runQueue runs the ordered calls one at a time until none is left.
func (c *Conn) runQueue() {
	for {
		c.mu.Lock()
		if len(c.queue) == 0 {
			c.queueing = false
			c.mu.Unlock()
			return
		}
		next := c.queue[0]
		c.queue[0] = nil
		c.queue = c.queue[1:]
		c.mu.Unlock()
		next()
	}
}

func (c *Conn) answer(id jsonrpc.ID, res any, err error) {
	if err != nil {
		var we *Error
		if !errors.As(err, &we) {
			we = &Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
		}
		_ = c.send(&jsonrpc.Response{ID: id, Error: we})
		return
	}
	b, merr := json.Marshal(res)
	if merr != nil {
		_ = c.send(&jsonrpc.Response{ID: id, Error: &Error{Code: jsonrpc.CodeInternalError, Message: merr.Error()}})
		return
	}
	_ = c.send(&jsonrpc.Response{ID: id, Result: b})
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// encode is m's line on the wire. A call, a notification and an answer
// with a result are written around their params or result as they are
// (json.Marshal's, compact already) rather than through
// jsonrpc.EncodeMessage, which would copy and compact them again: a
// file's bytes cross in them.
func encode(m jsonrpc.Message) ([]byte, error) {
	var id jsonrpc.ID
	var key string
	var raw json.RawMessage
	var method []byte
	switch m := m.(type) {
	case *jsonrpc.Request:
		id, key, raw = m.ID, "params", m.Params
		var err error
		if method, err = json.Marshal(m.Method); err != nil {
			return nil, err
		}
	case *jsonrpc.Response:
		if m.Error != nil {
			b, err := jsonrpc.EncodeMessage(m)
			return append(b, '\n'), err
		}
		id, key, raw = m.ID, "result", m.Result
	}
	if key == "" || len(raw) == 0 || bytes.IndexByte(raw, '\n') >= 0 {
		b, err := jsonrpc.EncodeMessage(m)
		return append(b, '\n'), err
	}
	b := make([]byte, 0, len(raw)+len(method)+64)
	b = append(b, `{"jsonrpc":"2.0"`...)
	if id.IsValid() {
		ib, err := json.Marshal(id.Raw())
		if err != nil {
			return nil, err
		}
		b = append(b, `,"id":`...)
		b = append(b, ib...)
	}
	if method != nil {
		b = append(b, `,"method":`...)
		b = append(b, method...)
	}
	b = append(b, `,"`...)
	b = append(b, key...)
	b = append(b, `":`...)
	b = append(b, raw...)
	return append(b, '}', '\n'), nil
}
