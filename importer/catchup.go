package importer

import (
	"context"
	"os"
	"runtime/debug"
	"unsafe"

	"cairn/engine"
)

// CatchUp brings agent session a's transcript (the file path) into its
// cairn session in workspace ws, reading on from where the last catch-up
// stopped (a State kept as the session's AgentMark), so a catch-up costs
// what the transcript grew by, not its size; a transcript rewritten since
// is read from its start. With pending (a hook's prompt being submitted),
// the transcript's line of that prompt, when it holds it, is left with
// what follows for the caller to append (engine.ImportSource.Pending).
// A transcript of another session changes nothing. The answer is nil when
// there was nothing to bring in. With s (the agent's session, open) the
// import goes into it; else the workspace opens the session for it.
func CatchUp(ctx context.Context, ws *engine.Workspace, s *engine.Session, a engine.AgentSession, path string, pending *engine.PendingPrompt) (*engine.ImportResult, error) {
	if s == nil {
		return catchUp(ctx, ws, s, a, path, pending, func() ([]byte, bool, func()) { return ws.AgentMark(a), false, func() {} })
	}
	// With the session open, nobody else writes the mark: it is read
	// mapped (Session.MapAgentMark), and given back before the return.
	return catchUp(ctx, ws, s, a, path, pending, func() ([]byte, bool, func()) {
		b, done := s.MapAgentMark(a)
		return b, true, done
	})
}

// catchUp is CatchUp with the mark from mark: its bytes, whether they are
// given back (done) when the catch-up ends, and done. Given back, the
// State parsed from them (parseState with own) keeps them for itself:
// what the import, the session and the result keep is copied, and the
// States (was, next) are dropped here.
func catchUp(ctx context.Context, ws *engine.Workspace, s *engine.Session, a engine.AgentSession, path string, pending *engine.PendingPrompt,
	mark func() (b []byte, lent bool, done func())) (_ *engine.ImportResult, err error) {
	kept, lent, done := mark()
	defer done()
	if lent {
		// A mapped mark cut short as it is read (by hand: cairn writes it
		// only with the session open) faults on a read past its end: a
		// panic of this goroutine, not the end of the process, said as
		// errMarkChanged. What the import wrote stays; the next catch-up
		// reads again what the mark did not keep. Only a fault inside the
		// mapping is that: any other panic, a nil pointer's among them,
		// is raised again.
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer func() {
			if r := recover(); r != nil {
				if f, fault := r.(interface{ Addr() uintptr }); !fault || !inMapping(kept, f.Addr()) {
					panic(r)
				}
				err = errMarkChanged
			}
		}()
	}
	from := func(prev *State) *State {
		if kept == nil {
			return nil
		}
		st, err := parseState(kept, lent, prev)
		if err != nil {
			return nil
		}
		return st
	}
	was := from(nil)
	src, _, next, err := Read(a.Agent, path, was, -1)
	if err != nil {
		return nil, err
	}
	if src.SourceID != a.ID {
		return nil, nil
	}
	if was != nil && next.Continues() && next.Offset == was.Offset && len(src.Items) == 0 {
		return nil, nil // nothing new
	}
	if len(src.Items) == 0 && was == nil {
		return nil, nil // nothing to bring in, and no session to note it in
	}
	src.Pending = pending
	var res *engine.ImportResult
	if s != nil {
		res, err = s.Import(ctx, src)
	} else {
		res, err = ws.Import(ctx, src)
	}
	if err != nil {
		return nil, err
	}
	if res.Cut >= 0 {
		// The pending prompt's line and what follows are the next read's:
		// read again from the mark, its aliases was's (nothing set them).
		if _, _, next, err = Read(a.Agent, path, from(was), res.Cut); err != nil {
			return res, nil // the next catch-up reads from the mark before
		}
	}
	next.Learn(res.Aliases)
	keep(ws, a, was, next)
	return res, nil
}

// keep keeps next as a's mark: a batch appended to the kept form was was
// parsed from, when next went on from it and that form is worth keeping,
// else the whole State written again. Best effort: a mark is a cache.
func keep(ws *engine.Workspace, a engine.AgentSession, was, next *State) {
	if was != nil && next.Continues() {
		if at, ok := was.Kept(); ok {
			if ws.AppendAgentMark(a, at, next.MarshalBatch()) == nil {
				return
			}
		}
	}
	ws.SetAgentMark(a, next.Marshal())
}

// inMapping reports whether address addr is in the pages of the mapping
// b is (a mapping covers whole pages; a file cut short faults in those of
// its pages past the new end).
func inMapping(b []byte, addr uintptr) bool {
	if len(b) == 0 {
		return false
	}
	page := uintptr(os.Getpagesize())
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	end := (start + uintptr(len(b)) + page - 1) &^ (page - 1)
	return addr >= start && addr < end
}
