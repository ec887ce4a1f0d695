package importer

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
	"time"
	"unsafe"

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
	Aliases  map[string]string `json:"-"`
	CC       *ccState          `json:"claude_code,omitempty"`
	CX       *cxState          `json:"codex,omitempty"`

	// Of the kept form it was parsed from (ParseState): the bytes of its
	// whole batches, and of those the bytes of lines later ones
	// overwrote; newAliases are the Aliases set since (Learn).
	kept, stale int64
	newAliases  []string
	// aliasStale is the part of stale that is alias entries (parseState
	// with prev).
	aliasStale int64
	// continues: the read that made this State went on from the one it
	// was given.
	continues bool
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
		next.Aliases, next.continues = from.Aliases, true
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
		if old, ok := st.Aliases[k]; !ok || old != v {
			st.newAliases = append(st.newAliases, k)
		}
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
	buf := make([]byte, stateSample) // io.Copy would make one of 32 KiB a read
	read := func(at, n int64) error {
		if n <= 0 {
			return nil
		}
		_, err := io.CopyBuffer(h, io.NewSectionReader(f, at, n), buf)
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

// The kept form of a State, part of the format (hooks/<id>/transcript.read):
// batches, each some entry lines and then the State's JSON line, which
// ends the batch. An entry is one tab-separated line:
//
//	t UUID KEY       a Claude Code line's tip (Tip): "=" for a key that is the uuid, "-" for none
//	a KEY ID         an alias (Aliases)
//	u MSG IN OUT     a Claude Code message's spend (Usage), in tokens
//
// A field holding a tab, a newline or a leading double quote is written
// Go-quoted. The first batch holds every entry (Marshal); a later catch-up
// appends a batch of the entries it set and its JSON line (MarshalBatch),
// so a catch-up writes what the transcript grew by, not the whole mark. A
// later entry of the same key wins. What follows the last JSON line (a
// batch a crash cut short) is not read, and the next batch is written in
// its place (Kept).

// stateVersion is the "v" of a State's JSON line.
const stateVersion = 2

// Marshal is the State as bytes to keep, whole: one batch of every entry.
func (st *State) Marshal() []byte {
	var b bytes.Buffer
	if st.CC != nil {
		for u, k := range st.CC.Tip.all() {
			tipEntry(&b, u, k)
		}
		for m, s := range st.CC.Usage {
			usageEntry(&b, m, s)
		}
	}
	for k, id := range st.Aliases {
		entry(&b, "a", k, id)
	}
	st.trailer(&b)
	return b.Bytes()
}

// MarshalBatch is the batch to append to the kept form the State was
// parsed from: the entries set since, and the JSON line.
func (st *State) MarshalBatch() []byte {
	var b bytes.Buffer
	if st.CC != nil {
		for _, u := range st.CC.newTips {
			k, _ := st.CC.Tip.get(u)
			tipEntry(&b, u, k)
		}
		for _, m := range st.CC.newUsage {
			usageEntry(&b, m, st.CC.Usage[m])
		}
	}
	for _, k := range st.newAliases {
		entry(&b, "a", k, st.Aliases[k])
	}
	st.trailer(&b)
	return b.Bytes()
}

// Kept is how many bytes of the kept form the State was parsed from hold
// whole batches (what follows is cut before a batch is appended), and
// whether a batch may be appended there at all: a kept form mostly of
// entries overwritten since is better written again whole.
func (st *State) Kept() (int64, bool) {
	return st.kept, st.kept > 0 && st.stale <= st.kept/2
}

// Continues reports whether the read that made st went on from the State
// it was given (else it read the file from its start, and the kept form
// is written again whole).
func (st *State) Continues() bool { return st.continues }

func (st *State) trailer(b *bytes.Buffer) {
	st.V = stateVersion
	j, _ := json.Marshal(st)
	b.Write(j)
	b.WriteByte('\n')
}

func tipEntry(b *bytes.Buffer, u, k string) {
	switch k {
	case u:
		k = "="
	case "":
		k = "-"
	}
	entry(b, "t", u, k)
}

func usageEntry(b *bytes.Buffer, m string, s engine.Spend) {
	entry(b, "u", m, strconv.FormatInt(s.InputTokens, 10), strconv.FormatInt(s.OutputTokens, 10))
}

// entry writes one entry line.
func entry(b *bytes.Buffer, kind string, fields ...string) {
	b.WriteString(kind)
	for _, f := range fields {
		b.WriteByte('\t')
		if needsQuote(f) {
			f = quote(f)
		}
		b.WriteString(f)
	}
	b.WriteByte('\n')
}

// needsQuote reports whether an entry's field f is written Go-quoted.
func needsQuote(f string) bool { return strings.ContainsAny(f, "\t\n\r") || strings.HasPrefix(f, `"`) }

func quote(f string) string { return strconv.Quote(f) }

var (
	// errTorn: a kept form's entry line cannot be read.
	errTorn = errors.New("importer: a read state's entry line is torn")
	// errMarkChanged: a mapped mark was cut short as a catch-up read it.
	errMarkChanged = errors.New("importer: the hooks' mark of the transcript changed as it was read; the next catch-up reads it again")
)

// ParseState reads what Marshal and MarshalBatch made. The State keeps
// b (its tips are read there): b is not to be changed after.
func ParseState(b []byte) (*State, error) { return parseState(b, false, nil) }

// parseState is ParseState; with own, b is a mapped kept form that a
// catch-up gives back before it returns (vfs.MapFile): what leaves the
// State is then no part of b. The aliases (Source.Prior: the ids they
// give become the session's items' ids and parents) and the spend's keys
// are copied, into one buffer, and a tip is copied as it is looked up;
// only the tips' entry lines are read in b, by the State alone (tips).
//
// With prev, a State parsed from b before whose Aliases nothing changed
// since (a catch-up reads from the mark twice when it leaves the pending
// prompt's line: Read and Import leave them as they were), the aliases
// are prev's, not parsed and made again.
func parseState(b []byte, own bool, prev *State) (*State, error) {
	// The last complete JSON line ends the part read; the entries before
	// it are counted on the way (n).
	end, last := -1, -1
	var n, at counts
	for i := 0; i < len(b); {
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			break
		}
		switch b[i] {
		case '{':
			last, end, n = i, i+j+1, at
		case 'u':
			at.usage++
			at.usageBytes += j
		case 'a':
			at.aliases++
			at.aliasBytes += j
		}
		i += j + 1
	}
	if last < 0 {
		return nil, errors.New("importer: no read state")
	}
	var st State
	if err := json.Unmarshal(b[last:end-1], &st); err != nil {
		return nil, err
	}
	if st.V != stateVersion || (st.CC == nil) == (st.CX == nil) {
		return nil, errors.New("importer: not a read state")
	}
	st.kept = int64(end)
	// The entries are read from one string, b itself (not copied: b is
	// not changed after): each field is a part of it, not a string of its
	// own, and the maps are made at their size (a long session's mark
	// holds thousands of entries, read at every prompt).
	text := ""
	if last > 0 {
		text = unsafe.String(&b[0], last)
	}
	if prev != nil {
		st.Aliases, st.aliasStale = prev.Aliases, prev.aliasStale
		n.aliasBytes = 0
	} else {
		st.Aliases = make(map[string]string, n.aliases)
	}
	var arena []byte
	if own {
		arena = make([]byte, 0, n.usageBytes+n.aliasBytes)
	}
	// keep is a field kept in a map: with own, a copy in arena (each
	// kept line's fields fit in it: a field is at most its line's bytes).
	keep := func(f string) string {
		if !own || f == "" {
			return f
		}
		if len(arena)+len(f) > cap(arena) {
			return strings.Clone(f) // never: the arena holds every kept line
		}
		n := len(arena)
		arena = append(arena, f...)
		return unsafe.String(&arena[n], len(f))
	}
	if st.CC != nil {
		// The tips are looked up in the text (tips), not made a map.
		st.CC.Tip = tips{m: map[string]string{}, text: text, own: own}
		st.CC.Usage = make(map[string]engine.Spend, n.usage)
		if st.CC.Calls == nil {
			st.CC.Calls = map[string]string{}
		}
		if st.CC.Agents == nil {
			st.CC.Agents = map[string]string{}
		}
	}
	if st.CX != nil && st.CX.Calls == nil {
		st.CX.Calls = map[string]string{}
	}
	var f []string
	for len(text) > 0 {
		line, rest, _ := strings.Cut(text, "\n")
		text = rest
		if len(line) > 0 && line[0] == '{' {
			st.stale += int64(len(line) + 1) // an earlier batch's JSON line
			continue
		}
		if prev != nil && len(line) > 0 && line[0] == 'a' {
			continue // prev's, read whole (prev was parsed from b)
		}
		if st.CC != nil && plainTip(line) {
			continue // read where it is (tips), as below
		}
		var err error
		if f, err = fields(line, f[:0]); err != nil {
			return nil, err
		}
		var dup bool
		switch {
		case f[0] == "t" && len(f) == 3 && st.CC != nil:
			// Read where it is (tips); a tip written again is not
			// counted as stale (a catch-up sets each line's once).
		case f[0] == "u" && len(f) == 4 && st.CC != nil:
			in, err1 := strconv.ParseInt(f[2], 10, 64)
			out, err2 := strconv.ParseInt(f[3], 10, 64)
			if err1 != nil || err2 != nil {
				return nil, errTorn
			}
			_, dup = st.CC.Usage[f[1]]
			st.CC.Usage[keep(f[1])] = engine.Spend{InputTokens: in, OutputTokens: out}
		case f[0] == "a" && len(f) == 3:
			if _, dup = st.Aliases[f[1]]; dup {
				st.aliasStale += int64(len(line) + 1)
				dup = false
			}
			st.Aliases[keep(f[1])] = keep(f[2])
		default:
			return nil, errTorn
		}
		if dup {
			st.stale += int64(len(line) + 1)
		}
	}
	st.stale += st.aliasStale
	return &st, nil
}

// counts is how many spend and alias entries a kept form's text holds
// (lines of each kind): the sizes its maps are made at; and the bytes of
// those lines.
type counts struct{ usage, aliases, usageBytes, aliasBytes int }

// plainTip reports whether line is a tip entry of no quoted field: what
// fields reads as three fields, "t" first, without unquoting (most of a
// long session's mark, each line read at every prompt).
func plainTip(line string) bool {
	rest, ok := strings.CutPrefix(line, "t\t")
	if !ok {
		return false
	}
	u, k, ok := strings.Cut(rest, "\t")
	return ok && strings.IndexByte(k, '\t') < 0 && !strings.HasPrefix(u, `"`) && !strings.HasPrefix(k, `"`)
}

// fields splits an entry line at its tabs, unquoting quoted fields.
// Unquoted fields are parts of line.
func fields(line string, out []string) ([]string, error) {
	for {
		f, rest, more := strings.Cut(line, "\t")
		if strings.HasPrefix(f, `"`) {
			u, err := strconv.Unquote(f)
			if err != nil {
				return nil, errTorn
			}
			f = u
		}
		out = append(out, f)
		if !more {
			break
		}
		line = rest
	}
	if len(out) < 3 {
		return nil, errTorn
	}
	return out, nil
}
