package cli

import (
	"context"
	"io"
)

// A plumbing call that reads stdin (tool write, tool patch, append -,
// turn --plan -, output put, migrate-sessions' question) reads it through
// ctxReader, so Ctrl-C stops a read that waits: a person who ran
// `cairn tool write f` at a terminal and meant to pipe the content, or a
// producer that never writes, would otherwise keep the call waiting past
// the SIGINT that cancelled it, until an end of input.

// input is stdin, read so that a cancelled call stops waiting for it.
func (g *Globals) input() io.Reader {
	return &ctxReader{ctx: g.ctx, r: g.stdin}
}

// ctxReader reads r in a goroutine of its own, a chunk at a time, and
// gives up when ctx is done. The goroutine, blocked in a read nobody
// waits for any more, ends with the process.
type ctxReader struct {
	ctx    context.Context
	r      io.Reader
	chunks chan chunk
	rest   []byte // of the last chunk, not read yet
	err    error  // the reader's error, after its last chunk
}

type chunk struct {
	b   []byte
	err error
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if len(c.rest) == 0 && c.err == nil {
		if c.chunks == nil {
			c.chunks = make(chan chunk)
			go c.pump()
		}
		select {
		case ch := <-c.chunks:
			c.rest, c.err = ch.b, ch.err
		case <-c.ctx.Done():
			return 0, c.ctx.Err()
		}
	}
	n := copy(p, c.rest)
	c.rest = c.rest[n:]
	if len(c.rest) == 0 && c.err != nil {
		return n, c.err
	}
	return n, nil
}

// pump reads r until an error (io.EOF included), handing each chunk over
// when Read asks for it; it stops early when ctx is done.
func (c *ctxReader) pump() {
	for {
		b := make([]byte, 32<<10)
		n, err := c.r.Read(b)
		select {
		case c.chunks <- chunk{b[:n], err}:
		case <-c.ctx.Done():
			return
		}
		if err != nil {
			return
		}
	}
}
