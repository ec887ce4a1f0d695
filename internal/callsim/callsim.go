// Package callsim simulates an agent's tool calls running at the same
// time (parallel tool use: shell commands and file edits whose pre- and
// post-tool hooks interleave) over a small workspace, and models the
// files they leave: what every file holds after each step, at each
// prompt, and what undo of a file tool's change puts back. The property
// tests of file revert across overlapping calls run its histories through
// the engine's API (engine), the agents' hooks and MCP (cli), and check
// each with History.Check.
//
// A history keeps to what cairn records: a call changes only files its
// scope covers (a whole-workspace shell command only files a
// whole-workspace walk sees), and only while it runs; a prompt comes only
// when no call runs (an agent submits the next prompt after its tools
// end); undo runs only when no call runs. A hand edit after the history
// is the one change no call made: a revert that would take that file back
// must refuse, naming it.
package callsim

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"path"
	"slices"
	"strings"
)

// Files is every file a history may hold; the folders a, b and ign exist
// from the start, and ign is ignored (Gitignore) but for calls that name
// it.
var Files = []string{"a/1", "a/2", "b/1", "b/2", "c.txt", "ign/x", "ign/y"}

// Gitignore is the workspace's .gitignore.
const Gitignore = "ign/\n"

// named are the paths a shell command's literal scope picks from.
var named = []string{"a", "b", "ign", "a/1", "a/2", "b/1", "b/2", "c.txt", "ign/x", "ign/y"}

// Gen rules the histories Generate makes.
type Gen struct {
	Ops      int // steps of a history (at least)
	Parallel int // the most calls running at once
	// EditFiles is the most files a file tool's call names (a Write
	// names one; an apply_patch several).
	EditFiles int
	// Instant: calls of the driver's own process run between the agent's
	// (a tool of the engine's API run while an agent's call is pending).
	Instant bool
	// Undo: undo of the newest file-tool change, when no call runs.
	Undo bool
	// HandEdit: a file changed by hand after the history, sometimes.
	HandEdit bool
}

// Call is one tool call of a history.
type Call struct {
	N int
	// Shell: a shell command, whose scope is the whole workspace
	// (Workspace) or the named Paths; else a file tool's call on the
	// files Paths.
	Shell, Workspace bool
	Paths            []string
	// Instant: the driver's own call, made at one step with its Writes.
	Instant bool
	Writes  []Write
	// Rec is the record or change line the driver saw the call write
	// ("" for none), for the driver's own checks.
	Rec string

	begin, end int                // its first and last step
	pre        map[string]*string // a file tool's files when it began
}

// Write is one change a call makes: the file gets Content (nil: removed).
type Write struct {
	File    string
	Content *string
}

// ID is the call's tool-use id.
func (c *Call) ID() string { return fmt.Sprintf("toolu_%02d", c.N) }

// Line is a shell line whose scope is the call's (it changes nothing when
// run: a driver that runs shell lines for real runs RealLine).
func (c *Call) Line() string {
	if c.Workspace {
		return "for f in *; do :; done"
	}
	return "rm -rf " + strings.Join(c.Paths, " ")
}

// RealLine is a shell line with the call's scope that makes its Writes.
func (c *Call) RealLine() string {
	var parts []string
	for _, w := range c.Writes {
		if w.Content == nil {
			parts = append(parts, "rm -f "+w.File)
		} else {
			parts = append(parts, fmt.Sprintf("printf %%s '%s' > %s", *w.Content, w.File))
		}
	}
	line := strings.Join(parts, "; ")
	if c.Workspace {
		return "for _ in 1; do " + line + "; done"
	}
	return line
}

// Covers reports whether the call may change file f: a whole-workspace
// command every file but the ignored ones, any other call the files at
// or under the paths it names.
func (c *Call) Covers(f string) bool {
	if c.Shell && c.Workspace {
		return !strings.HasPrefix(f, "ign/")
	}
	for _, p := range c.Paths {
		if f == p || strings.HasPrefix(f, p+"/") {
			return true
		}
	}
	return false
}

// Kinds of step.
const (
	Prompt = iota
	Begin
	Change // a running call changes a file
	End
	Instant
	Undo
	HandEdit
)

// Op is one step of a history.
type Op struct {
	Kind int
	Call *Call
	Write
}

func (o Op) String() string {
	content := func() string {
		if o.Content == nil {
			return "removed"
		}
		return *o.Content
	}
	switch o.Kind {
	case Prompt:
		return "prompt"
	case Begin:
		return "begin " + o.Call.String()
	case Change:
		return fmt.Sprintf("call %d: %s %s", o.Call.N, o.File, content())
	case End:
		return fmt.Sprintf("end %d", o.Call.N)
	case Instant:
		return fmt.Sprintf("instant %s %v", o.Call, o.Call.Writes)
	case Undo:
		return "undo"
	case HandEdit:
		return fmt.Sprintf("by hand: %s %s", o.File, content())
	}
	return "?"
}

func (c *Call) String() string {
	kind := "edit"
	if c.Shell {
		kind = "shell"
		if c.Workspace {
			return fmt.Sprintf("%d shell workspace", c.N)
		}
	}
	return fmt.Sprintf("%d %s %v", c.N, kind, c.Paths)
}

func (w Write) String() string {
	if w.Content == nil {
		return w.File + " removed"
	}
	return w.File + " " + *w.Content
}

// History is a sequence of steps, with the initial files.
type History struct {
	Start map[string]string
	Ops   []Op
	Calls []*Call
}

// Generate makes a history: prompts, calls that begin, change files and
// end in any interleaving, calls of the driver's own, undo, and a hand
// edit at the end.
func Generate(r *rand.Rand, g Gen) *History {
	h := &History{Start: map[string]string{}}
	n := 0
	val := func() *string {
		n++
		s := fmt.Sprintf("v%d", n)
		return &s
	}
	for _, f := range Files {
		if r.IntN(4) > 0 {
			h.Start[f] = *val()
		}
	}
	m := NewModel(h.Start)
	var open []*Call
	emit := func(o Op) {
		h.Ops = append(h.Ops, o)
		m.Apply(o)
	}
	// write picks a change call c may make, nil when it can make none.
	write := func(c *Call) *Write {
		var fs []string
		for _, f := range Files {
			if c.Covers(f) {
				fs = append(fs, f)
			}
		}
		if len(fs) == 0 {
			return nil
		}
		f := fs[r.IntN(len(fs))]
		w := &Write{File: f, Content: val()}
		if _, ok := m.Files[f]; ok && r.IntN(5) == 0 {
			w.Content = nil
		}
		return w
	}
	newCall := func(instant bool) *Call {
		c := &Call{N: len(h.Calls) + 1, Instant: instant}
		h.Calls = append(h.Calls, c)
		switch {
		case r.IntN(5) < 3:
			c.Shell = true
			c.Workspace = r.IntN(5) < 2
			if !c.Workspace {
				for range 1 + r.IntN(2) {
					c.Paths = append(c.Paths, named[r.IntN(len(named))])
				}
			}
		default:
			for range 1 + r.IntN(max(g.EditFiles, 1)) {
				c.Paths = append(c.Paths, Files[r.IntN(len(Files))])
			}
		}
		slices.Sort(c.Paths)
		c.Paths = slices.Compact(c.Paths)
		if c.Shell && !c.Workspace {
			// No path under another: a shell line names each once.
			c.Paths = slices.DeleteFunc(c.Paths, func(p string) bool {
				return slices.ContainsFunc(c.Paths, func(q string) bool { return strings.HasPrefix(p, q+"/") })
			})
		}
		return c
	}
	emit(Op{Kind: Prompt})
	for len(h.Ops) < g.Ops || len(open) > 0 {
		closing := len(h.Ops) >= g.Ops
		k := r.IntN(100)
		switch {
		case closing || (len(open) > 0 && k < 25):
			if len(open) == 0 {
				continue
			}
			i := r.IntN(len(open))
			if c := open[i]; closing && r.IntN(2) == 0 {
				if w := write(c); w != nil {
					emit(Op{Kind: Change, Call: c, Write: *w})
				}
			}
			emit(Op{Kind: End, Call: open[i]})
			open = slices.Delete(open, i, i+1)
		case len(open) > 0 && k < 60:
			c := open[r.IntN(len(open))]
			if w := write(c); w != nil {
				emit(Op{Kind: Change, Call: c, Write: *w})
			}
		case len(open) == 0 && k < 20:
			emit(Op{Kind: Prompt})
		case g.Undo && len(open) == 0 && k < 30:
			emit(Op{Kind: Undo})
		case g.Instant && k < 45 && (len(open) > 0 || k < 40):
			c := newCall(true)
			if c.Shell {
				for range 1 + r.IntN(2) {
					if w := write(c); w != nil && !slices.ContainsFunc(c.Writes, func(x Write) bool { return x.File == w.File }) {
						c.Writes = append(c.Writes, *w)
					}
				}
			} else {
				// The engine's file tools change one file.
				c.Paths = c.Paths[:1]
				if w := write(c); w != nil {
					c.Writes = []Write{*w}
				}
			}
			if len(c.Writes) == 0 {
				h.Calls = h.Calls[:len(h.Calls)-1]
				continue
			}
			emit(Op{Kind: Instant, Call: c})
		case len(open) < g.Parallel:
			c := newCall(false)
			open = append(open, c)
			emit(Op{Kind: Begin, Call: c})
		}
	}
	if g.HandEdit && r.IntN(3) == 0 {
		f := Files[r.IntN(len(Files))]
		w := Write{File: f, Content: val()}
		if _, ok := m.Files[f]; ok && r.IntN(3) == 0 {
			w.Content = nil
		}
		emit(Op{Kind: HandEdit, Write: w})
	}
	return h
}

// Model is what the files hold as a history runs.
type Model struct {
	Files map[string]string
	// Prompts is the files at each prompt, and since[i] the files a call
	// or an undo changed after prompt i.
	Prompts []map[string]string
	since   []map[string]bool
	// Hand is the files changed by hand.
	Hand map[string]bool
	// stack is the file tools' changes, oldest first, the first cursor
	// of them applied (undo takes back the newest).
	stack  []*Call
	cursor int
	step   int
}

// NewModel is the model of a history starting with files start.
func NewModel(start map[string]string) *Model {
	return &Model{Files: maps.Clone(start), Hand: map[string]bool{}}
}

// Apply runs one step on the model. Undo reports whether it undid
// something (Undone).
func (m *Model) Apply(o Op) {
	m.step++
	switch o.Kind {
	case Prompt:
		m.Prompts = append(m.Prompts, maps.Clone(m.Files))
		m.since = append(m.since, map[string]bool{})
	case Begin:
		m.begin(o.Call)
	case Change:
		m.put(o.Write)
	case End:
		m.end(o.Call)
	case Instant:
		m.begin(o.Call)
		for _, w := range o.Call.Writes {
			m.put(w)
		}
		m.end(o.Call)
	case Undo:
		if m.cursor == 0 {
			return
		}
		m.cursor--
		c := m.stack[m.cursor]
		for f, v := range c.pre {
			m.put(Write{File: f, Content: v})
		}
	case HandEdit:
		m.Hand[o.File] = true
		if o.Content == nil {
			delete(m.Files, o.File)
		} else {
			m.Files[o.File] = *o.Content
		}
	}
}

// Observe sets the files to what a driver read once calls whose order the
// model cannot know (parallel calls that cairn runs one after another)
// ended: the files they changed count as changed after every prompt.
func (m *Model) Observe(files map[string]string) {
	for _, f := range Files {
		v, ok := files[f]
		if w, wok := m.Files[f]; ok != wok || v != w {
			w := Write{File: f}
			if ok {
				w.Content = &v
			}
			m.put(w)
		}
	}
}

// CanUndo reports whether the model holds a file-tool change to undo.
func (m *Model) CanUndo() bool { return m.cursor > 0 }

func (m *Model) begin(c *Call) {
	c.begin = m.step
	if !c.Shell {
		c.pre = map[string]*string{}
		for _, f := range c.Paths {
			if v, ok := m.Files[f]; ok {
				c.pre[f] = &v
			} else {
				c.pre[f] = nil
			}
		}
	}
}

func (m *Model) end(c *Call) {
	c.end = m.step
	if c.Shell {
		return
	}
	for f, v := range c.pre {
		now, ok := m.Files[f]
		if (v == nil) != !ok || v != nil && *v != now {
			// A change is made: it ends the undone branch.
			m.stack = append(m.stack[:m.cursor], c)
			m.cursor++
			return
		}
	}
}

func (m *Model) put(w Write) {
	if w.Content == nil {
		delete(m.Files, w.File)
	} else {
		m.Files[w.File] = *w.Content
	}
	for _, s := range m.since {
		s[w.File] = true
	}
}

// Alone reports whether call c surely keeps its own record (no overlap
// line names it): it ran while no other call ran, or its scope meets no
// other call's (disjoint literal paths). A call that ran beside another
// whose scope meets its own, or beside a unit of such calls that meets it,
// belongs to their unit.
func (h *History) Alone(c *Call) bool {
	during, meet := false, false
	for _, o := range h.Calls {
		if o == c {
			continue
		}
		during = during || o.begin < c.end && c.begin < o.end || o.begin == c.begin
		meet = meet || meets(c, o)
	}
	return !during || !meet
}

// meets reports whether the scopes of two calls may name one file.
func meets(a, b *Call) bool {
	if a.Shell && a.Workspace || b.Shell && b.Workspace {
		return true
	}
	for _, p := range a.Paths {
		for _, q := range b.Paths {
			if p == q || strings.HasPrefix(p, q+"/") || strings.HasPrefix(q, p+"/") {
				return true
			}
		}
	}
	return false
}

// Conflict is one file a revert refused over (its kind and
// workspace-relative path).
type Conflict struct {
	Kind, Path string
}

// Target is what Check drives: the workspace's files, file revert to a
// prompt (conflicts: it refused over them, changing nothing), unrevert.
type Target interface {
	Read() (map[string]string, error)
	Revert(prompt int) ([]Conflict, error)
	Unrevert() error
}

// Check reverts to each prompt of the model in turn, from the files as
// the history left them, and says what is wrong: a revert must put back
// what every file held at the prompt (but a file changed by hand, which
// it leaves), or refuse naming only files changed by hand that calls
// changed after the prompt too; unrevert must then put back the files as
// they were.
func (m *Model) Check(d Target) []string {
	var bad []string
	for i, want := range m.Prompts {
		before, err := d.Read()
		if err != nil {
			return append(bad, err.Error())
		}
		cs, err := d.Revert(i)
		if err != nil {
			bad = append(bad, fmt.Sprintf("revert to prompt %d: %v", i, err))
			continue
		}
		if cs != nil {
			real := len(cs) > 0
			for _, c := range cs {
				real = real && c.Kind == "changed" && m.Hand[c.Path] && m.since[i][c.Path]
			}
			if !real {
				bad = append(bad, fmt.Sprintf("revert to prompt %d refused over %v: no real conflict", i, cs))
			}
			continue
		}
		want = maps.Clone(want)
		for f := range m.Hand {
			if v, ok := before[f]; ok {
				want[f] = v
			} else {
				delete(want, f)
			}
		}
		got, err := d.Read()
		if err != nil {
			return append(bad, err.Error())
		}
		if d := Diff(want, got); d != "" {
			bad = append(bad, fmt.Sprintf("revert to prompt %d: %s", i, d))
			return bad // the files are no longer where the next revert starts
		}
		if maps.Equal(got, before) {
			continue // nothing was reverted: nothing to unrevert
		}
		if err := d.Unrevert(); err != nil {
			return append(bad, fmt.Sprintf("unrevert of the revert to prompt %d: %v", i, err))
		}
		if got, err = d.Read(); err != nil || Diff(before, got) != "" {
			return append(bad, fmt.Sprintf("unrevert of the revert to prompt %d: %v %s", i, err, Diff(before, got)))
		}
	}
	return bad
}

// Diff says how got differs from want ("" when it does not).
func Diff(want, got map[string]string) string {
	var out []string
	for _, f := range Files {
		w, wok := want[f]
		g, gok := got[f]
		if wok != gok || w != g {
			show := func(v string, ok bool) string {
				if !ok {
					return "(absent)"
				}
				return v
			}
			out = append(out, fmt.Sprintf("%s: want %s, got %s", f, show(w, wok), show(g, gok)))
		}
	}
	return strings.Join(out, "; ")
}

// Dirs is the folders of Files, made before a history starts.
func Dirs() []string {
	var out []string
	for _, f := range Files {
		if d := path.Dir(f); !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}
