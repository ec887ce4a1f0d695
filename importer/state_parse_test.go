package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"cairn/engine"
)

// parseState reads a kept form as ParseState did before it counted the
// entries on its way to the last JSON line and passed plain tip lines by
// (parseStateBefore, below, as it was): the same State, stale bytes and
// kept bytes, or an error for the same marks, over marks of quoted and
// plain fields damaged at random (bytes cut, changed to a tab, a quote, a
// newline, an entry's letter, a brace).
func TestParseStateReadsAsBefore(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 29))
	field := func(i int) string {
		switch r.IntN(9) {
		case 0:
			return fmt.Sprintf("\"q%d", i) // written quoted
		case 1:
			return fmt.Sprintf("t\t%d", i)
		case 2:
			return ""
		}
		return fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i)
	}
	errs, oks := 0, 0
	for round := range 400 {
		st := &State{V: 1, Agent: AgentClaudeCode, Path: "/t.jsonl", Offset: 1, Sum: "x", CC: newCCState(), Aliases: map[string]string{}}
		if round%5 == 0 {
			st.CC, st.CX = nil, &cxState{}
		}
		for i := range r.IntN(60) {
			if st.CC != nil {
				st.CC.setTip(field(i), []string{field(i), "", "k" + field(i)}[r.IntN(3)])
				if r.IntN(4) == 0 {
					st.CC.setUsage(field(i), engine.Spend{InputTokens: int64(i), OutputTokens: 2})
				}
			}
			if r.IntN(3) == 0 {
				st.Aliases[field(i)] = "i-" + strconv.Itoa(i)
			}
		}
		kept := st.Marshal()
		for range r.IntN(3) { // batches, some entries written again
			next, err := ParseState(kept)
			if err != nil {
				t.Fatal(err)
			}
			for i := range r.IntN(20) {
				k := field(r.IntN(60))
				next.Learn(map[string]string{k: "i-b" + strconv.Itoa(i)})
				if next.CC != nil {
					next.CC.setUsage(k, engine.Spend{InputTokens: 9})
					next.CC.setTip(k, "b")
				}
			}
			kept = append(kept, next.MarshalBatch()...)
		}
		for try := range 6 {
			b := bytes.Clone(kept)
			if try > 0 {
				for range 1 + r.IntN(3) {
					if len(b) == 0 {
						break
					}
					at := r.IntN(len(b))
					switch r.IntN(3) {
					case 0:
						b = b[:at]
					default:
						b[at] = "\t\"\natu{x"[r.IntN(8)]
					}
				}
			}
			want, werr := parseStateBefore(bytes.Clone(b))
			got, err := ParseState(bytes.Clone(b))
			if (err != nil) != (werr != nil) {
				t.Fatalf("round %d/%d: error %v, before %v", round, try, err, werr)
			}
			if err != nil {
				errs++
				continue
			}
			oks++
			owned, _ := parseState(bytes.Clone(b), true, nil)
			again, _ := parseState(b, true, owned)
			for _, g := range []*State{got, owned, again} {
				if !sameState(g, want) || g.stale != want.stale || g.kept != want.kept {
					t.Fatalf("round %d/%d: the State read otherwise than before", round, try)
				}
			}
		}
	}
	if errs < 200 || oks < 1000 {
		t.Fatalf("%d marks read, %d refused: the cases do not test both", oks, errs)
	}
}

// parseStateBefore is ParseState as it was, what the test above holds it
// to.
func parseStateBefore(b []byte) (*State, error) {
	// The last complete JSON line ends the part read.
	end := -1
	last := -1
	for i := 0; i < len(b); {
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			break
		}
		if b[i] == '{' {
			last, end = i, i+j+1
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
	usage, aliases := entryCountsBefore(text)
	st.Aliases = make(map[string]string, aliases)
	if st.CC != nil {
		// The tips are looked up in the text (tips), not made a map.
		st.CC.Tip = tips{m: map[string]string{}, text: text}
		st.CC.Usage = make(map[string]engine.Spend, usage)
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
			st.CC.Usage[f[1]] = engine.Spend{InputTokens: in, OutputTokens: out}
		case f[0] == "a" && len(f) == 3:
			_, dup = st.Aliases[f[1]]
			st.Aliases[f[1]] = f[2]
		default:
			return nil, errTorn
		}
		if dup {
			st.stale += int64(len(line) + 1)
		}
	}
	return &st, nil
}

// entryCountsBefore is how many spend and alias entries the kept form's text
// holds (lines of each kind): the sizes its maps are made at.
func entryCountsBefore(text string) (usage, aliases int) {
	for i := 0; i < len(text); {
		switch text[i] {
		case 'u':
			usage++
		case 'a':
			aliases++
		}
		j := strings.IndexByte(text[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
	}
	return usage, aliases
}
