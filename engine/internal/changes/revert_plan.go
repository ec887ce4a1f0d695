package changes

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"syscall"

	"cairn/engine/internal/fstate"
	"cairn/internal/timefmt"
	"cairn/internal/vfs"
)

// File revert as one more maker of plans: from a Timeline, the files the
// steps after a boundary changed, the state each gets (what it held just
// before the first of them), and the conflicts that refuse the whole
// revert, found before anything is written.

// Conflict kinds of a file revert. Part of the answers.
const (
	// ConflictChanged: the file does not hold what the newest record says
	// (someone changed it since).
	ConflictChanged = "changed"
	// ConflictInterleaved: another change landed between two records of
	// the file (one without a record, or another session's).
	ConflictInterleaved = "interleaved"
	// ConflictUnrecorded: a record could not store the file (too large, a
	// failed store), or its stored content is gone.
	ConflictUnrecorded = "unrecorded"
)

// Conflict is one path a revert or unrevert refuses over.
type Conflict struct {
	Kind   string `json:"kind"`
	Path   string `json:"path"`
	Detail string `json:"detail"`
}

// Boundary says which steps belong after a revert's boundary: a record
// by the call it names (Record), any other step by the newest item when it
// was made (Event), each also given that item (ItemRef: the place of its
// line among the items) and its time, for lines that name no such item.
type Boundary struct {
	Record func(call string, item ItemRef, at timefmt.Time) bool
	Event  func(item ItemRef, at timefmt.Time) bool
}

func (b Boundary) after(st *Step) bool {
	if st.Record {
		return b.Record(st.Call, st.Item, st.At)
	}
	return b.Event(st.Item, st.At)
}

// Cut is the index of the first step after the boundary. Every step from
// there on is reverted, whatever it names (a record the session holds from
// its parent, an undo of an older change). len(tl.Steps) when there is
// none.
// A unit of calls that ran at the same time (overlap.go) is not a step
// of its own here: its calls are. One whose calls the boundary places on
// both sides is split (Targets refuses its files).
func (tl *Timeline) Cut(b Boundary) int {
	tl.split = map[*Unit]bool{}
	for _, st := range tl.Steps {
		if u := st.Unit; st.Kind == KindOverlap && u != nil {
			n := 0
			for i, c := range u.Calls {
				if b.Record(c, u.Began[i], st.At) {
					n++
				}
			}
			tl.split[u] = n > 0 && n < len(u.Calls)
		}
	}
	for i, st := range tl.Steps {
		if st.Kind != KindOverlap && b.after(st) {
			return i
		}
	}
	return len(tl.Steps)
}

// CallsAfter is the calls without a record made after the boundary: those
// after the cut, or that the boundary places there.
func (tl *Timeline) CallsAfter(cut int, b Boundary) []*CallMark {
	var out []*CallMark
	for _, m := range tl.Calls {
		if m.Pos >= cut || b.Record(m.Call, m.Item, m.At) {
			out = append(out, m)
		}
	}
	return out
}

// DroppedAfter is the records from the cut on whose objects the store
// budget may have dropped (named by drops, or by this journal's own).
func (tl *Timeline) DroppedAfter(cut int, drops map[string]bool) []string {
	var out []string
	for _, st := range tl.Steps[cut:] {
		if st.Record && (tl.Dropped[st.ID] || drops[st.ID]) {
			out = append(out, st.ID)
		}
	}
	return out
}

// Target is one file of a revert: the state it gets (Put, with content)
// and the state the records say it holds now (Expect).
type Target struct {
	Path        string
	Put, Expect *fstate.State
	newest      int // the index of the newest step that moved it
}

// Foreign says whether another session changed path between lo and hi,
// both included: times are kept to the millisecond, and a change in the
// same millisecond as a record may have come after it.
type Foreign func(path string, lo, hi timefmt.Time) bool

// Targets works out, from the steps from cut on, each file they moved,
// newest first, and the conflicts the records show without reading the
// files: a state not stored (unrecorded), two moves that do not meet or
// another session's change between them (interleaved), a unit of calls
// that ran at the same time split by the cut, or an undo, redo or revert
// among its calls' lines (interleaved, overlapConflicts). A
// unit's step stands for its calls' own lines, whose moves count for
// nothing here.
func (tl *Timeline) Targets(cut int, foreign Foreign) ([]Target, []Conflict) {
	type span struct {
		moves []Move
		at    []timefmt.Time
		last  int
	}
	spans := map[string]*span{}
	var order []string
	bad := tl.overlapConflicts(cut)
	for i := cut; i < len(tl.Steps); i++ {
		if tl.Steps[i].member() {
			continue // its unit's step holds what it changed
		}
		for _, m := range tl.Steps[i].Moves {
			sp := spans[m.Path]
			if sp == nil {
				sp = &span{}
				spans[m.Path] = sp
				order = append(order, m.Path)
			}
			sp.moves, sp.at, sp.last = append(sp.moves, m), append(sp.at, tl.Steps[i].At), i
		}
	}
	for _, p := range slices.Sorted(maps.Keys(bad)) {
		if spans[p] == nil {
			spans[p] = &span{}
			order = append(order, p)
		}
	}
	stored := tl.storedStates()
	var out []Target
	var conflicts []Conflict
	for _, p := range order {
		sp := spans[p]
		c := func() *Conflict {
			if c, ok := bad[p]; ok {
				return &c
			}
			for k, m := range sp.moves {
				if m.From.IsSkipped() || m.To.IsSkipped() {
					return &Conflict{ConflictUnrecorded, p, "a record could not store it (" + skipWhy(m.From, m.To) + ")"}
				}
				if k > 0 && !fstate.Same(sp.moves[k-1].To, m.From) {
					return &Conflict{ConflictInterleaved, p, "it changed between two records of it, with no record of that change"}
				}
			}
			if foreign != nil && len(sp.at) > 1 && foreign(p, sp.at[0], sp.at[len(sp.at)-1]) {
				return &Conflict{ConflictInterleaved, p, "another session changed it between two records of it"}
			}
			return nil
		}()
		if c != nil {
			conflicts = append(conflicts, *c)
			continue
		}
		put, expect := sp.moves[0].From, sp.moves[len(sp.moves)-1].To
		if fstate.Same(put, expect) {
			// The steps from the cut leave it as it was (a file a tool
			// named and did not change, or changed and changed back): a
			// revert has nothing to put back, and a change made since by
			// hand stays, as on any file no record names.
			continue
		}
		if put != nil && !put.Stored() {
			if s := stored[put.Sum()]; s != nil && s.Mode == put.Mode {
				s2 := *s
				s2.Perm = put.Perm
				put = &s2
			} else {
				conflicts = append(conflicts, Conflict{ConflictUnrecorded, p, "its content before is not stored"})
				continue
			}
		}
		out = append(out, Target{Path: p, Put: put, Expect: expect, newest: sp.last})
	}
	slices.SortStableFunc(out, func(a, b Target) int { return b.newest - a.newest })
	return out, conflicts
}

// storedStates indexes every stored state of the timeline by its content,
// for a state known by its hash only (what a revert put).
func (tl *Timeline) storedStates() map[string]*fstate.State {
	out := map[string]*fstate.State{}
	for _, st := range tl.Steps {
		for _, m := range st.Moves {
			for _, f := range []*fstate.State{m.From, m.To} {
				if f.Stored() && !f.IsSkipped() {
					out[f.Sum()] = f
				}
			}
		}
	}
	return out
}

func skipWhy(a, b *fstate.State) string {
	if a.IsSkipped() {
		return a.Skipped
	}
	return b.Skipped
}

// Check reads each target's file through fsys (hashing only) and returns
// the conflicts it finds: a file that does not hold what the records say
// (changed), or whose content to put back canPut says is gone
// (unrecorded); and cur, each file's state as read. A file that cannot be
// read is an error: nothing can be said of it.
func Check(ctx context.Context, fsys vfs.FS, targets []Target, canPut func(*fstate.State) bool) (cur []*fstate.State, conflicts []Conflict, err error) {
	cur = make([]*fstate.State, len(targets))
	var links fstate.Links
	for i, t := range targets {
		if l := links.Above(fsys, t.Path); l != "" {
			// The file the record names is not there, whatever the link
			// leads to; nor can it be put back without undoing the link.
			conflicts = append(conflicts, linkedConflict(t.Path, l))
			continue
		}
		c, err, same := fstate.Holds(ctx, fsys, t.Path, fstate.SizeLimit(1, t.Expect, t.Put), t.Expect)
		cur[i] = c
		switch {
		case underFile(c, err):
			// A call made a file of a folder this path was in: refused with
			// the reason, as a revert cannot swap the two back.
			conflicts = append(conflicts, Conflict{ConflictChanged, t.Path, "a folder on its path is a file now: file revert does not turn a file back into a folder"})
			continue
		case c.IsSkipped() && c.Skipped == fstate.SkipUnreadable:
			return nil, nil, fmt.Errorf("read %s: %w", t.Path, err)
		case c.IsSkipped() && c.Skipped == fstate.SkipNotFile && !same:
			conflicts = append(conflicts, Conflict{ConflictChanged, t.Path, "it is a folder (or another kind of file) now: file revert does not turn it back into a file"})
			continue
		}
		switch {
		case !same:
			conflicts = append(conflicts, Conflict{ConflictChanged, t.Path, "it changed since it was recorded"})
		case !fstate.Same(c, t.Put) && !canPut(t.Put):
			conflicts = append(conflicts, Conflict{ConflictUnrecorded, t.Path, "its recorded content is missing from the store"})
		}
	}
	return cur, conflicts, nil
}

// linkedConflict is the conflict of path, below folder link that is a
// symbolic link now.
func linkedConflict(path, link string) Conflict {
	return Conflict{ConflictChanged, path, link + " is a symbolic link now: file revert does not follow links, nor turn a link back into a folder"}
}

// underFile reports whether a capture failed because a folder on the
// path is a file (ENOTDIR): the path changed, it is not unreadable.
func underFile(c *fstate.State, err error) bool {
	return c.IsSkipped() && c.Skipped == fstate.SkipUnreadable && errors.Is(err, syscall.ENOTDIR)
}

// RevertPlan is the plan of a revert of targets, whose files hold cur
// (Check): each gets its Put, except those that hold it already.
func RevertPlan(targets []Target, cur []*fstate.State) Plan {
	p := Plan{Files: make([]File, len(targets))}
	for i, t := range targets {
		p.Files[i] = File{Path: t.Path, To: t.Put, Leave: fstate.Same(cur[i], t.Put)}
	}
	return p
}

// HashOnly is f by its content's identity alone (what a revert line
// records as "put").
func HashOnly(f *fstate.State) *fstate.State {
	if f == nil {
		return nil
	}
	return &fstate.State{SHA256: f.Sum(), Size: f.Size, Mode: f.Mode, Perm: f.Perm}
}

// UnrevertPlan is the plan of an unrevert of stack: each file the stack
// moved gets what the oldest revert kept of it, while it holds what the
// newest put. A file holding anything else is a conflict (changed) and so
// is a kept content canPut says is gone (unrecorded); a file that already
// holds what was kept is left. A file that cannot be read is an error.
func UnrevertPlan(ctx context.Context, fsys vfs.FS, stack []*Revert, canPut func(*fstate.State) bool) (Plan, []Conflict, error) {
	moves := UnrevertMoves(stack)
	var p Plan
	var conflicts []Conflict
	var links fstate.Links
	for _, m := range moves {
		if l := links.Above(fsys, m.Path); l != "" {
			conflicts = append(conflicts, linkedConflict(m.Path, l))
			continue
		}
		cur, err := fstate.Capture(ctx, fsys, fstate.HashSink, m.Path, fstate.SizeLimit(1, m.From, m.To))
		if underFile(cur, err) {
			conflicts = append(conflicts, Conflict{ConflictChanged, m.Path, "a folder on its path is a file now"})
			continue
		}
		if cur.IsSkipped() && cur.Skipped == fstate.SkipUnreadable {
			return Plan{}, nil, fmt.Errorf("read %s: %w", m.Path, err)
		}
		switch {
		case fstate.Same(cur, m.To):
			p.Files = append(p.Files, File{Path: m.Path, To: m.To, Leave: true})
		case !fstate.Same(cur, m.From):
			conflicts = append(conflicts, Conflict{ConflictChanged, m.Path, "it changed since the revert"})
		case !canPut(m.To):
			conflicts = append(conflicts, Conflict{ConflictUnrecorded, m.Path, "the content the revert kept is missing from the store"})
		default:
			p.Files = append(p.Files, File{Path: m.Path, To: m.To})
		}
	}
	return p, conflicts, nil
}

// RecoverUnrevertPlan finishes an unrevert its owner stopped in: each file
// still as the revert left it gets what was kept; any other is left.
func RecoverUnrevertPlan(st *Step, canPut func(*fstate.State) bool) Plan {
	p := Plan{Files: make([]File, len(st.Moves))}
	for i, m := range st.Moves {
		p.Files[i] = File{Path: m.Path, To: m.To, Leave: !canPut(m.To), Check: true, Expect: m.From,
			MaxRead: fstate.SizeLimit(1, m.From, m.To)}
	}
	return p
}

// Settle works out how far revert r got before its owner stopped: the
// files, read through fsys, that do not hold what it put.
func (r *Revert) Settle(ctx context.Context, fsys vfs.FS) []string {
	return NotAt(ctx, fsys, r.Step.Moves)
}

// NotAt is the files of moves that, read through fsys, do not hold the
// state their move gives.
func NotAt(ctx context.Context, fsys vfs.FS, moves []Move) []string {
	var left []string
	var links fstate.Links
	for _, m := range moves {
		cur, _ := fstate.Capture(ctx, fsys, fstate.HashSink, m.Path, fstate.SizeLimit(1, m.From, m.To))
		if links.Above(fsys, m.Path) != "" || !fstate.Same(cur, m.To) {
			left = append(left, m.Path)
		}
	}
	return left
}

// RevertLines splits the files of a revert line into lines of at most maxBytes
// of inline content each (at least one file a line).
func RevertLines(id string, at timefmt.Time, to string, item ItemRef, files []RevertFile, maxBytes int) []RevertLine {
	var groups [][]RevertFile
	size := 0
	for _, f := range files {
		n := 256
		if f.Kept != nil {
			n += len(f.Kept.Data) * 4 / 3
		}
		if len(groups) == 0 || (size+n > maxBytes && len(groups[len(groups)-1]) > 0) {
			groups = append(groups, nil)
			size = 0
		}
		groups[len(groups)-1] = append(groups[len(groups)-1], f)
		size += n
	}
	if len(groups) == 0 {
		groups = [][]RevertFile{{}}
	}
	out := make([]RevertLine, len(groups))
	for i, g := range groups {
		out[i] = RevertLine{V: 1, Kind: KindRevert, ID: id, At: at, Part: i + 1, Parts: len(groups), To: to, Item: item, Files: g}
	}
	return out
}

// String is a conflict as one line names it.
func (c Conflict) String() string { return fmt.Sprintf("%s %s", c.Kind, c.Path) }
