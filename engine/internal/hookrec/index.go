package hookrec

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unsafe"

	"cairn/internal/vfs"
)

// IndexFile is the index's name in a session's hooks folder.
const IndexFile = "items.idx"

// indexVersion is the "v" of an index's JSON lines.
const indexVersion = 1

// sample is how many bytes at each end of the journal's indexed part the
// index's sum covers.
const sample = 4 << 10

var (
	// ErrNoIndex: the index is missing, or holds no whole batch.
	ErrNoIndex = errors.New("hookrec: no index")
	// ErrTorn: a line of the index cannot be read.
	ErrTorn = errors.New("hookrec: an index line cannot be read")
	// ErrDisagrees: the index does not agree with its journal (Check).
	ErrDisagrees = errors.New("hookrec: the index does not agree with the journal")
	// ErrMarkMoved: the mark is shorter than the batches its reader parsed.
	ErrMarkMoved = errors.New("hookrec: the mark changed since it was read")
	// errIndexItem: an index names an item whose parent or call it lacks.
	errIndexItem = errors.New("hookrec: the index's items do not hang together")
)

// Entry is one item of the index: its links, and the text of a user item
// (with its time, as the engine writes times), which a prompt is matched
// by.
type Entry struct {
	ID, Type, Parent, Call, Task string
	At, Text                     string // user items only
}

// Index is the index as read (see the package doc).
type Index struct {
	Size  int64           // the journal bytes it holds
	Sum   string          // their sum (Sum)
	State json.RawMessage // the engine's summary of them
	// text is the item lines of its whole batches (and their earlier
	// JSON lines), n how many lines that is: they are parsed by the one
	// who reads them (FromIndex, Entries), straight into what they make.
	text string
	n    int
	// kept is the bytes of whole batches, stale those of lines a later
	// one overwrote (counted as the lines are parsed).
	kept, stale int64
	done        func() // gives back the mapping text is in (Close)
}

// trailer is an index's JSON line.
type trailer struct {
	V     int             `json:"v"`
	Size  int64           `json:"size"`
	Sum   string          `json:"sum"`
	State json.RawMessage `json:"state"`
}

// ReadIndex reads the index file name: ErrNoIndex when it is missing or
// holds no whole batch, ErrTorn (or a JSON error) when the JSON line
// ending its whole batches cannot be read. Its item lines are read by
// FromIndex or Entries. The file is mapped into memory where fsys can
// (vfs.MapFile: a long session's index, read at every prompt, is not
// copied) until Close; what a reader keeps of it is copied.
func ReadIndex(fsys vfs.FS, name string) (*Index, error) {
	b, done, err := vfs.MapFile(fsys, name)
	if vfs.IsNotExist(err) {
		return nil, ErrNoIndex
	}
	if err != nil {
		return nil, err
	}
	ix, err := readIndex(b)
	if err != nil {
		done()
		return nil, err
	}
	ix.done = done
	return ix, nil
}

// readIndex reads an index's bytes b (ReadIndex).
func readIndex(b []byte) (*Index, error) {
	last, end, n := -1, -1, 0
	for i := 0; i < len(b); {
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			break
		}
		if b[i] == '{' {
			last, end = i, i+j+1
		}
		n++
		i += j + 1
	}
	if last < 0 {
		return nil, ErrNoIndex
	}
	var t trailer
	if err := json.Unmarshal(b[last:end-1], &t); err != nil {
		return nil, err
	}
	if t.V != indexVersion || t.Size < 0 {
		return nil, ErrTorn
	}
	// The item lines are read from one string, each field a part of it:
	// a long session's index holds thousands of items, read at every
	// prompt. b is never written while it is read: it is that string,
	// not copied.
	text := ""
	if last > 0 {
		text = unsafe.String(&b[0], last)
	}
	return &Index{Size: t.Size, Sum: t.Sum, State: t.State, kept: int64(end), text: text, n: n}, nil
}

// Close gives back what ReadIndex mapped: nothing is read of ix after.
func (ix *Index) Close() {
	if ix.done != nil {
		ix.done()
	}
	ix.done, ix.text = nil, ""
}

// eachLine calls fn with each item line of the index and where it starts
// in its text, in the order they were written, and counts the earlier
// batches' JSON lines as stale.
func (ix *Index) eachLine(fn func(at int, line string) error) error {
	ix.stale = 0
	for at := 0; at < len(ix.text); {
		line, _, _ := strings.Cut(ix.text[at:], "\n")
		next := at + len(line) + 1
		if len(line) > 0 && line[0] == '{' {
			ix.stale += int64(len(line) + 1)
		} else if err := fn(at, line); err != nil {
			return err
		}
		at = next
	}
	return nil
}

// parseEntry reads one item line; its fields are parts of line.
func parseEntry(line string) (Entry, error) {
	var f [8]string
	n := 0
	for {
		field, rest, more := strings.Cut(line, "\t")
		if n == len(f) {
			return Entry{}, ErrTorn
		}
		f[n] = field
		n++
		if !more {
			break
		}
		line = rest
	}
	if (n != 6 && n != 8) || f[0] != "i" || f[1] == "" || f[2] == "" {
		return Entry{}, ErrTorn
	}
	e := Entry{ID: f[1], Type: f[2], Parent: f[3], Call: f[4], Task: f[5]}
	if n == 8 {
		e.At = f[6]
		t, err := strconv.Unquote(f[7])
		if err != nil {
			return Entry{}, ErrTorn
		}
		e.Text = t
	}
	return e, nil
}

// appendEntry writes e's line; the text is written when e has a time.
func appendEntry(b *bytes.Buffer, e Entry) {
	for i, f := range []string{"i", e.ID, e.Type, e.Parent, e.Call, e.Task} {
		if i > 0 {
			b.WriteByte('\t')
		}
		b.WriteString(clean(f))
	}
	if e.At != "" {
		b.WriteByte('\t')
		b.WriteString(clean(e.At))
		b.WriteByte('\t')
		b.WriteString(strconv.Quote(e.Text))
	}
	b.WriteByte('\n')
}

// clean keeps a field on its line: ids, types and times hold no tab nor
// newline (the engine checks them), but an index is never worth a
// broken line.
func clean(s string) string {
	if strings.ContainsAny(s, "\t\n\r") {
		return strings.Map(func(r rune) rune {
			if r == '\t' || r == '\n' || r == '\r' {
				return ' '
			}
			return r
		}, s)
	}
	return s
}

// Batch is what a batch holds: items, and the journal size, sum and
// summary the index holds with them.
func Batch(items []Entry, size int64, sum string, state json.RawMessage) []byte {
	var b bytes.Buffer
	for _, e := range items {
		appendEntry(&b, e)
	}
	t, _ := json.Marshal(trailer{V: indexVersion, Size: size, Sum: sum, State: state})
	b.Write(t)
	b.WriteByte('\n')
	return b.Bytes()
}

// Appendable reports where a batch goes after this index (the end of its
// whole batches), and whether it is worth appending to: an index mostly
// of lines later ones overwrote is written again whole. The overwritten
// lines are counted as its lines are read (FromIndex, Entries): before,
// it counts none.
func (ix *Index) Appendable() (int64, bool) {
	return ix.kept, ix.kept > 0 && ix.stale <= ix.kept/2
}

// WriteIndex replaces the index file name with b (a Batch of every item),
// not synced: the index is derived.
func WriteIndex(fsys vfs.FS, name string, b []byte) error {
	return vfs.ReplaceFile(fsys, name, b)
}

// AppendIndex writes b (a Batch) after the first at bytes of the index
// (Appendable), as AppendMark does.
func AppendIndex(fsys vfs.FS, name string, at int64, b []byte) error {
	return AppendMark(fsys, name, at, b)
}

// Sum is the sum of the first size bytes of the journal f: the SHA-256 of
// size and of the first and last 4 KiB of those bytes.
func Sum(f io.ReaderAt, size int64) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%d\n", size)
	head := min(size, sample)
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, head)); err != nil {
		return "", err
	}
	tail := max(size-sample, head)
	if _, err := io.Copy(h, io.NewSectionReader(f, tail, size-tail)); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Agreement is how an index stands to its journal.
type Agreement int

const (
	// Current: the index holds the whole journal.
	Current Agreement = iota
	// Behind: the journal went on past the index; the lines after Size
	// are to be folded onto it.
	Behind
	// Disagrees: the journal is shorter than the index says, or its
	// bytes are not those the index was made from: rebuild it.
	Disagrees
)

// Check says how ix stands to the journal name, and the journal's size.
func (ix *Index) Check(fsys vfs.FS, journal string) (Agreement, int64, error) {
	f, err := fsys.OpenFile(journal, os.O_RDONLY, 0)
	if err != nil {
		return Disagrees, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Disagrees, 0, err
	}
	if fi.Size() < ix.Size {
		return Disagrees, fi.Size(), nil
	}
	sum, err := Sum(f, ix.Size)
	if err != nil {
		return Disagrees, fi.Size(), err
	}
	switch {
	case sum != ix.Sum:
		return Disagrees, fi.Size(), nil
	case fi.Size() > ix.Size:
		return Behind, fi.Size(), nil
	}
	return Current, fi.Size(), nil
}
