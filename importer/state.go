package importer

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"cairn/engine"
)

// Reading a source where the last read stopped. An agent's hooks bring
// its transcript in at every prompt and at the end of every turn; the
// file only grows, so each read takes up where the one before stopped
// instead of parsing the whole file again. A State holds that place and
// what the parse carries from line to line (where each line's children
// hang, the calls not yet answered, the spend so far), and the ids the
// engine gave items whose id is not derived from their key alone (a
// prompt the hooks recorded, a tool call: ImportResult.Aliases).
//
// A file rewritten since (not only grown) must be read again from its
// start: a State names a sample of the bytes before its offset (the
// first and the last 4 KiB of them, and the offset), and a read from it
// checks that sample first. Hashing all the bytes before the offset
// would cost what reading them does, which is what a State saves.

// stateSample is how many bytes at each end of the read part a State's
// sum covers.
const stateSample = 4 << 10

// State is where a read of a source file stopped; see above.
type State struct {
	V      int    `json:"v"`
	Agent  string `json:"agent"`
	Path   string `json:"path"`
	Offset int64  `json:"offset"`
	Sum    string `json:"sum"`
	// What the source said of itself so far.
	SourceID string            `json:"source,omitempty"`
	Dir      string            `json:"dir,omitempty"`
	Model    string            `json:"model,omitempty"`
	Created  time.Time         `json:"created,omitzero"`
	Aliases  map[string]string `json:"aliases,omitempty"`
	// Tips is how many tip lines follow the JSON line (Marshal).
	Tips int      `json:"tips,omitempty"`
	CC   *ccState `json:"claude_code,omitempty"`
	CX   *cxState `json:"codex,omitempty"`
}

// into gives a source the state's knowledge of the part read before. A
// read from a State changes it: parse a kept one again to read from it
// twice.
func (st *State) into(src *engine.ImportSource) {
	src.SourceID, src.Dir, src.Model, src.Created = st.SourceID, st.Dir, st.Model, st.Created
	src.Prior = st.Aliases
}

// Read parses the source file path of agent, from its start or, given
// from (the State a read of the same file left), from where that read
// stopped, when the file still holds what it read (else from the start).
// With limit >= 0 it stops before the line that starts at that offset.
// It returns the source (the items of this read), the stats of the lines
// it read, and the State to read on from.
func Read(agent, path string, from *State, limit int64) (*engine.ImportSource, Stats, *State, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, newStats(), nil, err
	}
	defer f.Close()
	if from != nil && (from.Agent != agent || from.Path != path || from.Offset < 0 ||
		agent == AgentClaudeCode && from.CC == nil || agent == AgentCodex && from.CX == nil || !from.holds(f)) {
		from = nil
	}
	var r io.Reader = f
	if from != nil {
		if _, err := f.Seek(from.Offset, io.SeekStart); err != nil {
			return nil, newStats(), nil, err
		}
	}
	var src *engine.ImportSource
	var stats Stats
	next := &State{V: 1, Agent: agent, Path: path}
	switch agent {
	case AgentClaudeCode:
		var p *ccParse
		if p, err = parseClaudeCode(r, path, from, limit); err == nil {
			src, stats, next.CC = &p.src, p.stats, p.st
		}
	case AgentCodex:
		var p *cxParse
		if p, err = parseCodex(r, path, from, limit); err == nil {
			src, stats, next.CX = &p.src, p.stats, p.st
		}
	default:
		err = fmt.Errorf("unknown agent %q", agent)
	}
	if err != nil {
		return nil, stats, nil, err
	}
	next.Offset, next.SourceID, next.Dir, next.Model, next.Created = src.Offset, src.SourceID, src.Dir, src.Model, src.Created
	if from != nil {
		next.Aliases = from.Aliases
	}
	if next.Sum, err = sampleSum(f, next.Offset); err != nil {
		return nil, stats, nil, err
	}
	return src, stats, next, nil
}

// Learn keeps the ids an import gave items whose id is not derived from
// their key (ImportResult.Aliases), for the next read's source.
func (st *State) Learn(aliases map[string]string) {
	if len(aliases) == 0 {
		return
	}
	if st.Aliases == nil {
		st.Aliases = map[string]string{}
	}
	for k, v := range aliases {
		st.Aliases[k] = v
	}
}

// holds reports whether f still holds the bytes the read that left st
// read.
func (st *State) holds(f *os.File) bool {
	fi, err := f.Stat()
	if err != nil || fi.Size() < st.Offset {
		return false
	}
	sum, err := sampleSum(f, st.Offset)
	return err == nil && sum == st.Sum
}

// sampleSum is the SHA-256 of the first and last stateSample bytes before
// offset in f, and offset.
func sampleSum(f *os.File, offset int64) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%d\n", offset)
	read := func(at, n int64) error {
		if n <= 0 {
			return nil
		}
		_, err := io.Copy(h, io.NewSectionReader(f, at, n))
		return err
	}
	head := min(offset, stateSample)
	if err := read(0, head); err != nil {
		return "", err
	}
	tail := max(offset-stateSample, head)
	if err := read(tail, offset-tail); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Marshal is the State as bytes to keep: a JSON line, then a Claude Code
// parse's line tips, one "uuid<TAB>key" a line ("=" for a key that is
// the uuid itself, "-" for none).
func (st *State) Marshal() []byte {
	var b bytes.Buffer
	if st.CC != nil {
		st.Tips = len(st.CC.Tip)
	}
	j, _ := json.Marshal(st)
	b.Grow(len(j) + 1 + 80*st.Tips)
	b.Write(j)
	b.WriteByte('\n')
	if st.CC != nil {
		for u, k := range st.CC.Tip {
			switch k {
			case u:
				k = "="
			case "":
				k = "-"
			}
			b.WriteString(u)
			b.WriteByte('\t')
			b.WriteString(k)
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

// ParseState reads what Marshal made.
func ParseState(b []byte) (*State, error) {
	first, rest, _ := bytes.Cut(b, []byte("\n"))
	var st State
	if err := json.Unmarshal(first, &st); err != nil {
		return nil, err
	}
	if st.V != 1 || (st.CC == nil) == (st.CX == nil) {
		return nil, errors.New("importer: not a read state")
	}
	if st.CC != nil {
		st.CC.Tip = make(map[string]string, st.Tips)
		if st.CC.Calls == nil {
			st.CC.Calls = map[string]string{}
		}
		if st.CC.Usage == nil {
			st.CC.Usage = map[string]engine.Spend{}
		}
		if st.CC.Agents == nil {
			st.CC.Agents = map[string]string{}
		}
		sc := bufio.NewScanner(bytes.NewReader(rest))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			u, k, ok := strings.Cut(sc.Text(), "\t")
			if !ok {
				return nil, errors.New("importer: a read state's tip line is torn")
			}
			switch k {
			case "=":
				k = u
			case "-":
				k = ""
			}
			st.CC.Tip[u] = k
		}
	}
	if st.CX != nil && st.CX.Calls == nil {
		st.CX.Calls = map[string]string{}
	}
	return &st, nil
}
