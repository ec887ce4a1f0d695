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
	return &ctxReader{ctx: g.Ctx, r: g.Stdin}
}

// ctxReader reads r in a goroutine of its own and gives up when ctx is
// done. The goroutine reads only when Read asks, never ahead: input a
// later reader of the same stdin is meant to get stays where it is. Left
// blocked in a read nobody waits for any more, it ends with the process.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
	req chan int   // how much Read wants
	res chan chunk // what the goroutine read
}

type chunk struct {
	b   []byte
	err error
}

// ctxChunk bounds one read of the goroutine, whose buffer it is.
const ctxChunk = 32 << 10

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	if len(p) == 0 {
		return 0, nil
	}
	if c.req == nil {
		c.req, c.res = make(chan int), make(chan chunk)
		go c.serve()
	}
	select {
	case c.req <- len(p):
	case <-c.ctx.Done():
		return 0, c.ctx.Err()
	}
	select {
	case ch := <-c.res:
		return copy(p, ch.b), ch.err
	case <-c.ctx.Done():
		return 0, c.ctx.Err()
	}
}

// serve reads r each time Read asks, into one buffer Read copies out of
// before it asks again.
func (c *ctxReader) serve() {
	buf := make([]byte, ctxChunk)
	for {
		var n int
		select {
		case n = <-c.req:
		case <-c.ctx.Done():
			return
		}
		k, err := c.r.Read(buf[:min(n, len(buf))])
		select {
		case c.res <- chunk{buf[:k], err}:
		case <-c.ctx.Done():
			return
		}
	}
}
