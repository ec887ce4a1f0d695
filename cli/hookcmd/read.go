package hookcmd

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// readHookEvent reads the hook event on r: one JSON object, of which only
// the top-level members want names are kept (their values as they are
// written); every other member is read past without being kept. An
// agent's post-tool event repeats the whole file an edit wrote
// (tool_response), so an event may be far bigger than what cairn reads of
// it; this reads any size in the memory of the members kept.
//
// The members read past are checked for their shape (strings closed,
// brackets matched, literals spelled right), so a torn or garbled event
// is refused as a whole.
func readHookEvent(r io.Reader, want map[string]bool) (map[string]json.RawMessage, error) {
	sc := &jsonSkipper{r: bufio.NewReaderSize(r, 64<<10)}
	out := map[string]json.RawMessage{}
	c, err := sc.next()
	if err != nil {
		return nil, err
	}
	if c != '{' {
		return nil, errors.New("not a JSON object")
	}
	first := true
	for {
		c, err := sc.next()
		if err != nil {
			return nil, err
		}
		if c == '}' && first {
			break
		}
		if !first {
			if c == '}' {
				break
			}
			if c != ',' {
				return nil, fmt.Errorf("unexpected %q after a member", c)
			}
			if c, err = sc.next(); err != nil {
				return nil, err
			}
		}
		first = false
		if c != '"' {
			return nil, fmt.Errorf("unexpected %q where a member's name belongs", c)
		}
		sc.keep = true
		sc.buf = append(sc.buf[:0], '"')
		if err := sc.str(); err != nil {
			return nil, err
		}
		var name string
		if err := json.Unmarshal(sc.buf, &name); err != nil {
			return nil, err
		}
		if c, err = sc.next(); err != nil {
			return nil, err
		}
		if c != ':' {
			return nil, fmt.Errorf("unexpected %q after a member's name", c)
		}
		if c, err = sc.next(); err != nil {
			return nil, err
		}
		sc.keep, sc.buf = want[name], sc.buf[:0]
		if sc.keep {
			sc.buf = append(sc.buf, c)
		}
		if err := sc.value(c); err != nil {
			return nil, err
		}
		if sc.keep {
			v := json.RawMessage(append([]byte(nil), sc.buf...))
			if !json.Valid(v) {
				return nil, fmt.Errorf("member %q is not valid JSON", name)
			}
			out[name] = v
		}
	}
	sc.keep = false
	if _, err := sc.next(); !errors.Is(err, io.EOF) {
		if err == nil {
			return nil, errors.New("data after the JSON object")
		}
		return nil, err
	}
	return out, nil
}

// jsonSkipper reads JSON a byte at a time, keeping what it reads in buf
// while keep is set.
type jsonSkipper struct {
	r    *bufio.Reader
	keep bool
	buf  []byte
}

func (s *jsonSkipper) byte() (byte, error) {
	c, err := s.r.ReadByte()
	if errors.Is(err, io.EOF) {
		return 0, io.ErrUnexpectedEOF
	}
	if err != nil {
		return 0, err
	}
	if s.keep {
		s.buf = append(s.buf, c)
	}
	return c, nil
}

// next is the next byte that is not white space (io.EOF at the end, which
// is an error anywhere but after the object).
func (s *jsonSkipper) next() (byte, error) {
	for {
		c, err := s.r.ReadByte()
		if err != nil {
			return 0, err
		}
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c, nil
	}
}

// value reads the rest of a value whose first byte, c, was read.
func (s *jsonSkipper) value(c byte) error {
	switch {
	case c == '"':
		return s.str()
	case c == '{' || c == '[':
		return s.nested(c)
	case c == 't':
		return s.literal("rue")
	case c == 'f':
		return s.literal("alse")
	case c == 'n':
		return s.literal("ull")
	case c == '-' || c >= '0' && c <= '9':
		return s.number()
	}
	return fmt.Errorf("unexpected %q where a value belongs", c)
}

// str reads the rest of a string whose opening quote was read.
func (s *jsonSkipper) str() error {
	esc := false // the byte before was a backslash that escapes the next
	for {
		// The bulk of a big event is its strings: take them a buffer at a time.
		chunk, err := s.r.ReadSlice('"')
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			if errors.Is(err, io.EOF) {
				return io.ErrUnexpectedEOF
			}
			return err
		}
		if s.keep {
			s.buf = append(s.buf, chunk...)
		}
		body := chunk
		if err == nil {
			body = chunk[:len(chunk)-1] // the quote
		}
		for _, c := range body {
			if esc {
				esc = false
			} else if c == '\\' {
				esc = true
			}
		}
		if err == nil {
			if !esc {
				return nil
			}
			esc = false // an escaped quote: the string goes on
		}
	}
}

// nested reads the rest of an object or array whose opening bracket was
// read, checking that the brackets match.
func (s *jsonSkipper) nested(open byte) error {
	stack := []byte{open}
	for len(stack) > 0 {
		c, err := s.byte()
		if err != nil {
			return err
		}
		switch c {
		case '"':
			if err := s.str(); err != nil {
				return err
			}
		case '{', '[':
			stack = append(stack, c)
		case '}', ']':
			want := byte('{')
			if c == ']' {
				want = '['
			}
			if stack[len(stack)-1] != want {
				return fmt.Errorf("unexpected %q", c)
			}
			stack = stack[:len(stack)-1]
		}
	}
	return nil
}

func (s *jsonSkipper) literal(rest string) error {
	for i := 0; i < len(rest); i++ {
		c, err := s.byte()
		if err != nil {
			return err
		}
		if c != rest[i] {
			return fmt.Errorf("unexpected %q in a literal", c)
		}
	}
	return nil
}

func (s *jsonSkipper) number() error {
	for {
		b, err := s.r.Peek(1)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		c := b[0]
		if !(c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
			return nil
		}
		s.byte()
	}
}
