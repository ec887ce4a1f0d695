package engine

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
)

// SearchOutput returns the lines of output id of session that hold substr
// (a plain, case-sensitive substring), in order, with 1-based line numbers.
// Like ReadOutput, it reads only from the output's own session.
func (w *Workspace) SearchOutput(ctx context.Context, session, id, substr string) ([]OutputMatch, error) {
	if substr == "" {
		return nil, fmt.Errorf("%w: empty search text", ErrBadInput)
	}
	rc, err := w.ReadOutput(ctx, session, id)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return searchLines(ctx, rc, []byte(substr))
}

// searchLines scans r line by line ("\n" ends a line, a "\r" before it is
// dropped). A line is held whole while it is searched, so memory is bounded
// by the longest line, itself bounded by the output cap.
func searchLines(ctx context.Context, r io.Reader, needle []byte) ([]OutputMatch, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var (
		out  []OutputMatch
		line []byte
		n    int
	)
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if len(line) > 0 {
			n++
			l := bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
			if bytes.Contains(l, needle) {
				m := OutputMatch{Line: n}
				if len(l) > maxMatchText {
					l, m.Cut = l[:maxMatchText], true
				}
				m.Text = string(l)
				out = append(out, m)
			}
			line = line[:0]
			if n%4096 == 0 {
				if cerr := ctx.Err(); cerr != nil {
					return nil, cerr
				}
			}
		}
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
	}
}
