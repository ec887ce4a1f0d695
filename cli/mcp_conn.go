package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// How `cairn mcp` ends. The SDK's stdio transport treats the end of stdin
// as the end of everything: it cancels the calls under way and writes no
// more answers, so a client that writes a request and closes its end gets
// nothing back, though the call may have changed files. MCP's own shutdown
// for stdio is exactly that (close the server's input, wait for it to exit,
// then SIGTERM, then SIGKILL), so:
//
//   - At the end of stdin, cairn mcp reads no more requests, finishes the
//     calls it has read, writes their answers, then exits (0).
//   - On SIGTERM or SIGHUP it reads no more requests and cancels
//     the calls under way: a shell line's process group is killed and what
//     it changed until then is recorded; a file tool is either done and
//     recorded or not made. Each call's tool_result is written, its answer
//     too while stdout is open, the session is closed durably, and it exits
//     with 128 plus the signal's number. SIGINT (Ctrl-C) ends it the same
//     way and exits 0.
//
// drainConn is the SDK's stdio connection with that end: its Read holds
// back the end of input (or the stop) until every call it has handed on is
// answered.

// mcpStdio is stdin and stdout as an MCP transport whose reads end when
// stop is done, and which finishes its calls before it ends (drainConn).
type mcpStdio struct {
	in   io.Reader
	out  io.Writer
	stop context.Context
}

func (t *mcpStdio) Connect(ctx context.Context) (mcp.Connection, error) {
	out := &serialWriter{w: t.out}
	pr, pw := io.Pipe()
	c, err := (&mcp.IOTransport{Reader: pr, Writer: out}).Connect(ctx)
	if err != nil {
		return nil, err
	}
	go filterLines(t.in, pw, out)
	return &drainConn{Connection: c, stop: t.stop}, nil
}

// serialWriter writes one message at a time: the SDK's answers and the
// parse errors filterLines writes share stdout.
type serialWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *serialWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

func (l *serialWriter) Close() error { return nil }

// filterLines hands the SDK the lines of in that are JSON, and answers
// each other line with JSON-RPC's parse error (code -32700, id null), as
// the protocol asks: the SDK's own reader ends the whole connection at
// the first line it cannot decode. A blank line is skipped. The end of in
// (or a failed read) ends the pipe, as it ends the SDK's reading.
func filterLines(in io.Reader, pw *io.PipeWriter, out io.Writer) {
	br := bufio.NewReaderSize(in, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if t := bytes.TrimSpace(line); len(t) > 0 {
			if json.Valid(t) {
				if _, werr := pw.Write(append(t, '\n')); werr != nil {
					return
				}
			} else {
				msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil,
					"error": map[string]any{"code": jsonrpc.CodeParseError, "message": "parse error: the line is not JSON"}})
				out.Write(append(msg, '\n'))
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				pw.Close()
			} else {
				pw.CloseWithError(err)
			}
			return
		}
	}
}

// drainConn counts the calls read and the answers written (see above).
type drainConn struct {
	mcp.Connection
	stop context.Context

	mu sync.Mutex
	// The ids of the calls read whose answers are not written yet. By id,
	// not a count: a call reusing the id of one under way is never
	// answered (the SDK drops it), and must not be waited for.
	open map[jsonrpc.ID]bool
	// cancelled are the calls the client cancelled (notifications/cancelled):
	// their answers are not written, as the protocol asks.
	cancelled map[jsonrpc.ID]bool
	gone      bool          // the writer failed or the connection closed: no answer can be written
	wake      chan struct{} // closed when open or gone changes, for a draining Read
}

func (c *drainConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(c.stop, cancel)()
	m, err := c.Connection.Read(rctx)
	if err == nil {
		if r, ok := m.(*jsonrpc.Request); ok && r.IsCall() {
			c.mu.Lock()
			if c.open == nil {
				c.open = map[jsonrpc.ID]bool{}
			}
			c.open[r.ID] = true
			c.mu.Unlock()
		} else if ok && r.Method == "notifications/cancelled" {
			var p struct {
				RequestID any `json:"requestId"`
			}
			if json.Unmarshal(r.Params, &p) == nil {
				if id, err := jsonrpc.MakeID(p.RequestID); err == nil && id.IsValid() {
					c.mu.Lock()
					if c.cancelled == nil {
						c.cancelled = map[jsonrpc.ID]bool{}
					}
					c.cancelled[id] = true
					c.mu.Unlock()
				}
			}
		}
		return m, nil
	}
	c.drain()
	if c.stop.Err() != nil {
		return nil, io.EOF // told to stop: an end, not a failure
	}
	return nil, err
}

// drain waits until every call read is answered, or no answer can be.
func (c *drainConn) drain() {
	for {
		c.mu.Lock()
		if len(c.open) == 0 || c.gone {
			c.mu.Unlock()
			return
		}
		if c.wake == nil {
			c.wake = make(chan struct{})
		}
		w := c.wake
		c.mu.Unlock()
		<-w
	}
}

// changed wakes a draining Read; c.mu is held.
func (c *drainConn) changed() {
	if c.wake != nil {
		close(c.wake)
		c.wake = nil
	}
}

func (c *drainConn) Write(ctx context.Context, m jsonrpc.Message) error {
	r, answer := m.(*jsonrpc.Response)
	var err error
	c.mu.Lock()
	drop := answer && c.cancelled[r.ID]
	if drop {
		delete(c.cancelled, r.ID)
	}
	c.mu.Unlock()
	if !drop {
		err = c.Connection.Write(ctx, m)
	}
	if answer || err != nil {
		c.mu.Lock()
		if answer {
			delete(c.open, r.ID)
		}
		if err != nil {
			c.gone = true
		}
		c.changed()
		c.mu.Unlock()
	}
	return err
}

func (c *drainConn) Close() error {
	c.mu.Lock()
	c.gone = true
	c.changed()
	c.mu.Unlock()
	return c.Connection.Close()
}
