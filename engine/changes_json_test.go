package engine

import (
	"bytes"
	stdjson "encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"cairn/engine/internal/changes"
	"cairn/internal/vfs"
	"cairn/journal"
)

// writtenLinesSeeds is where -update writes the lines of
// TestChangesJournalDecodesAsEncodingJSON, the seeds of package changes'
// FuzzChangesDecodeAsEncodingJSON.
const writtenLinesSeeds = "internal/changes/testdata/written.jsonl"

// TestChangesJournalDecodesAsEncodingJSON: every kind of line the engine
// writes to a changes journal, written by real operations (file tools,
// a patch, shell records, overlapping calls, undo, redo, a discarded
// branch, drops, a denied file, file revert and unrevert, closes; names
// with escapes and names that are not UTF-8), decodes with
// changes.Decode to the same Line as with encoding/json.
func TestChangesJournalDecodesAsEncodingJSON(t *testing.T) {
	e := newSnapEnv(t, `{"snapshots":{"max_per_session":3,"max_file_bytes":64,"required":["contracts/**"]}}`)
	odd := []string{`q"uote\back<&>.txt`, "tab\tname.txt", "caf\u00e9 \U0001F600.txt", "bad\xff", "dir\xfe/x\xff.txt"}
	for _, f := range append([]string{"a.txt", "b.txt", "contracts/big.sol"}, odd...) {
		e.put(f, f+" old\n")
	}
	e.put("contracts/big.sol", strings.Repeat("x", 100))
	s := e.session()
	p := must(s.Append(e.ctx, Item{Type: User, Text: "edit everything"}))(t)
	must(s.ToolWrite(e.ctx, "a.txt", []byte("a new\n")))(t)
	for _, f := range odd {
		if _, err := s.ToolWrite(e.ctx, f, []byte("new\n")); err != nil {
			t.Fatalf("write %q: %v", f, err)
		}
	}
	e.exec(s, `for f in bad* b.txt; do echo shell >> "$f"; done`)
	must(s.ToolPatch(e.ctx, []byte("*** Begin Patch\n*** Add File: p\xc3(.txt\n+made\n*** End Patch\n")))(t)
	if _, err := s.ToolWrite(e.ctx, "contracts/big.sol", []byte("y")); err == nil {
		t.Fatal("a required file over max_file_bytes was written")
	}
	must(s.Undo(e.ctx))(t)
	must(s.Undo(e.ctx))(t)
	must(s.Redo(e.ctx))(t)
	must(s.ToolWrite(e.ctx, "b.txt", []byte("b after undo\n")))(t) // discards the undone branch
	s = e.reopen(s)
	must(s.Revert(e.ctx, p.ID, RevertFiles))(t)
	must(s.Unrevert(e.ctx))(t)
	lines := e.rawLines(s)
	// A fork's journal starts with a start line.
	fork := must(s.Fork(e.ctx, ""))(t)
	forked := must(e.ws.Open(e.ctx, fork.Session, SessionOptions{}))(t)
	lines = append(lines, e.rawLines(forked)...)
	must0(t, forked.Close())

	// Overlapping calls, in an agent's session: a shell command and an
	// edit whose hooks interleave.
	a := AgentSession{Agent: "claude-code", ID: "chjson-1"}
	var agent *Session
	e.hookPair(a, func(s *Session) { agent = s; must(s.Append(e.ctx, Item{Type: User, Text: "go"}))(t) })
	line := "for f in b.txt; do echo more >> $f; done"
	e.hookPair(a, func(s *Session) { must(s.BeginExec(e.ctx, "bash", "tb", line, ""))(t) })
	e.hookPair(a, func(s *Session) { must(s.beginHookChange(e.ctx, "edit", "te", []string{e.path("a.txt")}))(t) })
	e.put("a.txt", "a hook\n")
	e.sh(line)
	e.hookPair(a, func(s *Session) { must(s.SettleChange(e.ctx, "te"))(t) })
	e.hookPair(a, func(s *Session) { must(s.SettleChange(e.ctx, "tb"))(t) })
	lines = append(lines, e.rawLines(agent)...)

	kinds := map[string]bool{}
	for _, b := range lines {
		var want changes.Line
		werr := stdjson.Unmarshal(b, &want)
		got, gerr := changes.Decode(b)
		if werr != nil || want.V != 1 || gerr != nil {
			t.Fatalf("%q: encoding/json %v (v %d), Decode %v", b, werr, want.V, gerr)
		}
		if !reflect.DeepEqual(&want, got) {
			t.Fatalf("%q:\nencoding/json %+v\nDecode        %+v", b, want, *got)
		}
		kinds[got.Kind] = true
	}
	for _, k := range []string{changes.KindChange, changes.KindUndo, changes.KindRedo, changes.KindDiscard, changes.KindDrop,
		changes.KindEvidence, changes.KindClose, changes.KindOverlap, changes.KindCall, changes.KindRecord, changes.KindStart,
		changes.KindRevert, changes.KindReverted, changes.KindUnrevert, changes.KindUnreverted} {
		if !kinds[k] {
			t.Errorf("no %q line was written: the test reads less than it says", k)
		}
	}
	all := bytes.Join(lines, []byte("\n"))
	for _, want := range []string{`{"base64":`, `\"`, `\\`, `\t`, `\u003c`, `"data":"`, "caf\u00e9"} {
		if !bytes.Contains(all, []byte(want)) {
			t.Errorf("no line holds %q", want)
		}
	}
	if *update {
		if err := os.WriteFile(filepath.FromSlash(writtenLinesSeeds), append(all, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d lines, kinds %v", len(lines), slices.Sorted(func(yield func(string) bool) {
		for k := range kinds {
			if !yield(k) {
				return
			}
		}
	}))
}

// rawLines is the lines of s's changes journal as written.
func (e *snapEnv) rawLines(s *Session) [][]byte {
	e.t.Helper()
	var out [][]byte
	_, err := journal.Read(e.store.fsys, changesName(e.ws.dir, s.ID()), func(b []byte) error {
		out = append(out, bytes.Clone(b))
		return nil
	})
	if err != nil && !vfs.IsNotExist(err) {
		e.t.Fatal(err)
	}
	return out
}
