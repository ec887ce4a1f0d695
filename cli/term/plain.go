package term

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// PickPlain is the picker without a terminal: it writes every row to w as
// a numbered list (from 1) under a line of column heads, asks for a
// number and reads one line from r.
// An empty answer, "q" or the end of r give ErrCancelled; an answer that
// names no row gives an error wrapping ErrBadChoice that quotes it.
func PickPlain(r io.Reader, w io.Writer, rows []Row) (int, error) {
	if len(rows) == 0 {
		return 0, ErrNoRows
	}
	var b strings.Builder
	width := len(strconv.Itoa(len(rows)))
	fmt.Fprintf(&b, "%*s  %s\n", width, "", plainHeader())
	for i, row := range rows {
		fmt.Fprintf(&b, "%*d. %s\n", width, i+1, formatRow(row))
	}
	fmt.Fprintf(&b, "number (1-%d, empty to cancel): ", len(rows))
	if _, err := io.WriteString(w, b.String()); err != nil {
		return 0, err
	}
	answer, err := readAnswer(r)
	if err != nil && !errors.Is(err, io.EOF) {
		return 0, err
	}
	// The answer came from a pipe or a file, so it was not echoed: end the
	// question's line, so what follows starts on a line of its own.
	if _, err := io.WriteString(w, "\n"); err != nil {
		return 0, err
	}
	answer = strings.TrimSpace(answer)
	if answer == "" || strings.EqualFold(answer, "q") {
		return 0, ErrCancelled
	}
	n, convErr := strconv.Atoi(answer)
	if convErr != nil || n < 1 || n > len(rows) {
		return 0, fmt.Errorf("%w: %q (choose 1-%d)", ErrBadChoice, answer, len(rows))
	}
	return n - 1, nil
}

// readAnswer reads one line a byte at a time, so that nothing after it is
// taken from r.
func readAnswer(r io.Reader) (string, error) {
	var line []byte
	var c [1]byte
	for len(line) < 4096 {
		n, err := r.Read(c[:])
		if n == 1 {
			if c[0] == '\n' {
				return string(line), nil
			}
			line = append(line, c[0])
			continue
		}
		if err != nil {
			return string(line), err
		}
	}
	return string(line), nil
}
