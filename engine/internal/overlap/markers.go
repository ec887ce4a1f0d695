package overlap

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"cairn/engine/internal/changes"
	"cairn/engine/internal/scope"
	"cairn/internal/vfs"
)

// Marker is one pending call's marker file, read: what the unit rules
// need of it, and Value, what the file holds (written back as JSON when
// its unit mark changes; Mark points into Value).
type Marker struct {
	Name  string // its path
	At    time.Time
	Mark  *Mark
	Scope Scope
	// Member is the call in the unit's overlap line; a file edit's ID is
	// its Mark.Rec, known once it ended.
	Member changes.OverlapMember
	// Exec: a shell command's marker, whose walk before the command is
	// kept beside it (TreeName) with SHA-256 TreeSum. Else a file edit's,
	// with its files' pre-images Files.
	Exec    bool
	TreeSum string
	Files   []changes.FileChange
	Value   any
}

func (m *Marker) call() Call {
	u := m.Mark
	return Call{Name: m.Name, Scope: m.Scope, Unit: u.Unit, Seq: u.Seq, Ended: u.Ended}
}

// Markers is the folder of one session's pending markers. It takes no
// lock: the caller owns the session.
type Markers struct {
	FS  vfs.FS
	Dir string
	// Decode reads a marker's bytes (all of Marker but Name and At), nil
	// when they do not read.
	Decode func(b []byte) *Marker
	// Root and StateDir are the workspace and the state folder, for the
	// walk a call joining a whole-workspace call's unit makes (Join).
	Root, StateDir string
	// NewID names a new unit.
	NewID func() string
}

// TreeName is the walk kept beside exec marker name.
func TreeName(marker string) string { return strings.TrimSuffix(marker, ".json") + ".tree" }

// SumHex is the SHA-256 of b in hex.
func SumHex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// ReadTree decodes a kept walk whose SHA-256 is sum.
func ReadTree(b []byte, sum string) (*scope.Tree, error) {
	if SumHex(b) != sum {
		return nil, scope.ErrTreeCorrupt
	}
	return scope.DecodeTree(b)
}

// Read is the pending markers that read (one that does not is fsck's to
// name, and the next hook's to sweep).
func (k Markers) Read() []*Marker {
	ents, err := k.FS.ReadDir(k.Dir)
	if err != nil {
		return nil
	}
	var out []*Marker
	for _, e := range ents {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		name := path.Join(k.Dir, e.Name())
		b, err := vfs.ReadFile(k.FS, name)
		if err != nil {
			continue
		}
		m := k.Decode(b)
		if m == nil {
			continue
		}
		m.Name = name
		if fi, err := e.Info(); err == nil {
			m.At = fi.ModTime()
		}
		out = append(out, m)
	}
	return out
}

// Join places a call of scope sc beginning now, whose marker is name,
// among the session's pending calls ms (Join): the unit mark its own
// marker gets. The markers of the calls that join the unit with it are
// rewritten first; a call that must say which of its files a
// whole-workspace walk covers looks now (the call holds them as it
// begins).
func (k Markers) Join(ctx context.Context, name string, sc Scope, ms []*Marker) (Mark, error) {
	var calls []Call
	byName := map[string]*Marker{}
	for _, m := range ms {
		if m.Name != name {
			calls = append(calls, m.call())
			byName[m.Name] = m
		}
	}
	j := Join(calls, sc, k.NewID)
	if j.Unit == "" {
		return Mark{}, nil
	}
	u := Mark{Unit: j.Unit, Seq: j.Seq}
	if j.Seen {
		// Which files a walk sees, not what they hold: none is read.
		t, err := scope.WalkVisible(ctx, k.Root, sc.Paths, scope.Options{StateDir: k.StateDir, MaxFileBytes: 1})
		if err != nil {
			return u, fmt.Errorf("engine: a call that runs beside others cannot be recorded: %w", err)
		}
		for e := range t.All() {
			if !e.IsDir() {
				u.Seen = append(u.Seen, e.Path)
			}
		}
	}
	for _, c := range j.Moved {
		m := byName[c.Name]
		m.Mark.Unit = c.Unit
		if err := k.Write(m); err != nil {
			return u, err
		}
	}
	return u, nil
}

// Write writes marker m again (its unit mark changed).
func (k Markers) Write(m *Marker) error {
	b, _ := json.Marshal(m.Value)
	if err := vfs.ReplaceFile(k.FS, m.Name, b); err != nil {
		return fmt.Errorf("engine: a pending call's marker was not written: %w", err)
	}
	return nil
}

// Ended leaves the ended marker name of a call of this process that
// joined a unit: value, with tree, its walk before it (an exec's), kept
// beside it. The walk first, then the marker that names it.
func (k Markers) Ended(name string, value any, tree []byte) error {
	b, _ := json.Marshal(value)
	err := k.FS.MkdirAll(path.Dir(name), vfs.DirPerm)
	if err == nil && tree != nil {
		err = vfs.ReplaceFile(k.FS, TreeName(name), tree)
	}
	if err == nil {
		err = vfs.ReplaceFile(k.FS, name, b)
	}
	return err
}

// End ends the pending call of marker self, whose own line is written
// (rec: a file edit's change line, "" when it wrote none). Alone: nothing
// to do (the caller removes its marker). The last running call of its
// unit ends the unit: unit is the unit's markers (self among them), whose
// overlap line the caller writes before it Drops them. Any other call of
// a unit keeps its marker, ended (keep true; err when it could not be
// written).
func (k Markers) End(self *Marker, rec string) (keep bool, unit []*Marker, err error) {
	u := self.Mark
	if u.Unit == "" {
		return false, nil, nil
	}
	u.Ended, u.Rec = true, rec
	if self.Exec {
		u.Rec = ""
	}
	var calls []Call
	for _, m := range k.Read() {
		if m.Name == self.Name {
			m = self
		}
		calls = append(calls, m.call())
		if m.Mark.Unit == u.Unit {
			unit = append(unit, m)
		}
	}
	if !slices.Contains(unit, self) {
		unit = append(unit, self)
	}
	if !Last(calls, u.Unit, self.Name) {
		if err := k.Write(self); err != nil {
			return false, nil, err
		}
		return true, nil, nil
	}
	return false, unit, nil
}

// Drop removes the markers of an ended unit but self's (the caller
// removes it), with their kept walks.
func (k Markers) Drop(unit []*Marker, self *Marker) {
	for _, m := range unit {
		if m != self {
			k.remove(m)
		}
	}
}

func (k Markers) remove(m *Marker) {
	k.FS.Remove(m.Name)
	k.FS.Remove(TreeName(m.Name))
}

// Members is what Net needs of an ended unit's calls, in the order they
// began (unit is sorted so), each exec's kept walk read; line is the
// overlap line's members, wide whether a call covers the whole workspace,
// and named the paths the others name.
func (k Markers) Members(unit []*Marker) (members []Member, line []changes.OverlapMember, wide bool, named []string, err error) {
	slices.SortStableFunc(unit, func(a, b *Marker) int { return a.Mark.Seq - b.Mark.Seq })
	for _, m := range unit {
		mem := Member{Scope: m.Scope, Seen: m.Mark.Seen}
		if m.Exec {
			b, err := vfs.ReadFile(k.FS, TreeName(m.Name))
			if err != nil {
				return nil, nil, false, nil, err
			}
			if mem.Walk, err = ReadTree(b, m.TreeSum); err != nil {
				return nil, nil, false, nil, err
			}
		} else {
			mem.Files = m.Files
		}
		wide = wide || mem.Scope.Workspace
		if !mem.Scope.Workspace {
			named = append(named, mem.Scope.Paths...)
		}
		mm := m.Member
		if !m.Exec {
			mm.ID = m.Mark.Rec
		}
		members = append(members, mem)
		line = append(line, mm)
	}
	return members, line, wide, named, nil
}

// Pending counts the calls still running: a marker not ended and made
// after cut (an older one's agent died: the next hook sweeps it).
func (k Markers) Pending(cut time.Time) int {
	n := 0
	for _, m := range k.Read() {
		if !m.Mark.Ended && m.At.After(cut) {
			n++
		}
	}
	return n
}

// Sweep removes the ended markers of units that have no running call
// left (one was interrupted and swept): they can end no more. Their
// calls' own lines stay.
func (k Markers) Sweep() {
	ms := k.Read()
	live := map[string]bool{}
	for _, m := range ms {
		if u := m.Mark; !u.Ended && u.Unit != "" {
			live[u.Unit] = true
		}
	}
	for _, m := range ms {
		if u := m.Mark; u.Ended && !live[u.Unit] {
			k.remove(m)
		}
	}
}
