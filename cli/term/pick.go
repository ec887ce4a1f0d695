package term

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"
	xterm "golang.org/x/term"
)

// defaultPageHeight is the page height when out's size is unknown.
const defaultPageHeight = 20

// Kind is what a listing's rows are.
type Kind int

const (
	// Sessions: each row a session (the resume picker).
	Sessions Kind = iota
	// Prompts: each row a prompt of a conversation, newest first (the
	// rewind picker): Row.Title is the prompt, Row.Age its age, Row.Items
	// its item number N on the head path (ITEM) and Row.ID its item id.
	Prompts
	// Shells: each row a running background shell job (the shell modal):
	// Row.ID the job's id, Row.Title its command, Row.Age how long it has
	// run. Ctrl-K chooses the selected row (to stop it); Enter does not.
	Shells
)

// Listing is what PickListing shows: Rows at once, and, when Refresh is not
// nil, the listing Refresh returns in their place once it is ready.
type Listing struct {
	Kind Kind
	// Rows are drawn first: the whole listing, or, with Refresh, a first
	// page that may be out of date (read from a cache).
	Rows []Row
	// Total is the number of rows the whole listing is thought to hold,
	// shown until Refresh answers; 0 means len(Rows).
	Total int
	// Refresh returns the whole listing, newest first. It starts once the
	// first screen is on the terminal and runs while the user types; its
	// rows replace Rows, keeping the filter and the selected row (by id)
	// when it is still there. ctx is cancelled when the picker ends, and
	// PickListing waits for Refresh to return.
	Refresh func(ctx context.Context) ([]Row, error)
	// Heading, when set, is a line drawn under the filter line (what the
	// rows are, when it is not the usual listing).
	Heading string
	// Preview, when not nil, gives what the picker shows of the selected
	// row beside the list (wide windows) or below it. It runs in the
	// background, once per row, and may be slow.
	Preview func(Row) Preview
	// Rename, when not nil, renames the session of a row to name (Ctrl-R,
	// then the name, then Enter), and returns its title as stored.
	Rename func(ctx context.Context, r Row, name string) (string, error)
	// Every, when not nil, lists the sessions of every directory, newest
	// first, with Row.Dir set: Ctrl-A switches between it and the rows of
	// this directory. StartEvery starts with it.
	Every      func(ctx context.Context) ([]Row, error)
	StartEvery bool
}

// PickListing shows the rows of l below the cursor and lets the user choose
// one. Typing filters (see matchRows); Up/Down move, PgUp/PgDn page,
// Home/End go to the first/last row, Enter chooses, Esc and Ctrl-D leave
// with ErrCancelled, Ctrl-C with ErrInterrupted. Every row can be reached.
// The picture follows the window's size. The keys come from keys; the
// terminal is in raw mode until PickListing returns, and what it drew is
// wiped. Keys typed after the one that ended the picker stay in keys for
// what reads next.
//
// The first screen is drawn from l.Rows without waiting for l.Refresh, and
// the choice is the row as the refreshed listing has it. A row chosen
// before the refresh is done is held ("checking") until it is: when the
// refresh no longer lists it (deleted, or its record unreadable), the
// picker says so and stays open for another choice, so such a row is never
// returned. The keys typed while a choice is checked wait for what reads
// next (the REPL's first prompt), unless the row is gone; Esc and Ctrl-C
// still leave. A refresh that fails ends the picker with its error; one
// that lists nothing, with ErrNoRows.
//
// Cancelling ctx ends the picker at once (it returns ctx's error), with its
// picture wiped and the terminal restored: for leaving on a signal.
func PickListing(ctx context.Context, keys *Keys, out io.Writer, l Listing) (Row, error) {
	m, err := runPick(ctx, keys, out, l)
	if err != nil {
		return Row{}, err
	}
	if m.err != nil {
		return Row{}, m.err
	}
	return m.v.rows[m.chosen], nil
}

// runPick runs the picker program and returns its final model.
func runPick(ctx context.Context, keys *Keys, out io.Writer, l Listing) (*pickModel, error) {
	if len(l.Rows) == 0 {
		return nil, ErrNoRows
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	run, err := keys.begin(out)
	if errors.Is(err, errKeysClosed) {
		return nil, ErrCancelled
	}
	if err != nil {
		return nil, err
	}
	var unused []uv.Event // typed after the choice: for what reads next
	defer func() { run.end(unused...) }()
	m := newPickModel(l, 0, 0)
	m.run = run
	// The refresh waits for the first screen to be written, so that it
	// does not compete with drawing it.
	var drawn atomic.Bool
	m.drawn = &drawn
	frame := make(chan struct{})
	if l.Refresh != nil {
		m.loading = true
		out, m.start = watchFirstFrame(out, &drawn, frame)
	}
	// The program reads no input itself: its keys come from keys (run).
	// It is stopped by a message, not by a context, so that it draws its
	// last, empty picture (the picker wiped) when ctx ends too.
	opts := []tea.ProgramOption{tea.WithInput(nil), tea.WithOutput(out), tea.WithoutSignalHandler(), tea.WithoutCatchPanics()}
	if c, _ := screenSize(out); c == 0 {
		if c, r, err := xterm.GetSize(keys.fd); err == nil && c > 0 {
			opts = append(opts, tea.WithWindowSize(c, r))
		}
	}
	p := tea.NewProgram(m, opts...)
	rctx, cancel := context.WithCancel(ctx)
	m.ctx = rctx
	var wg sync.WaitGroup
	if l.Refresh != nil {
		wg.Go(func() {
			select {
			case <-frame:
			case <-rctx.Done():
				return
			}
			rows, err := l.Refresh(rctx)
			if rctx.Err() == nil {
				p.Send(rowsMsg{rows, err})
			}
		})
	}
	wg.Go(func() {
		<-rctx.Done()
		if ctx.Err() != nil {
			p.Send(stopMsg{ctx.Err()})
		}
	})
	final, err := p.Run()
	cancel()
	wg.Wait()
	if err != nil {
		return nil, err
	}
	fm := final.(*pickModel)
	if fm.done && fm.err == nil {
		unused = fm.held
	}
	return fm, nil
}

// pickModel is the picker as a terminal program: a pickView drawn to the
// window's size.
type pickModel struct {
	l             Listing
	ctx           context.Context // ends with the picker: for the work it starts
	v             *pickView
	width, height int // the window, 0 = unknown
	previews      map[string]Preview
	asked         map[string]bool

	// own are this directory's rows, every the rows of every directory
	// once listed (Listing.Every); showEvery: the user asked for every
	// directory; listingEvery: that listing is on its way.
	own          []Row
	every        []Row
	showEvery    bool
	listingEvery bool

	// renaming: the footer is the rename input, name what is typed in
	// it, for the row of id renameID.
	renaming bool
	name     string
	renameID string
	footerAt int // the footer's line in the last picture

	// loading: the rows are a first page and the whole listing is on its
	// way (a rowsMsg); total is the number of rows it is thought to hold.
	// pending is the id of a row chosen before it came; note a line for
	// the footer. drawn, when not nil, is set once a picture is made;
	// start, when not nil, starts the refresh if it has not started (a key
	// was pressed).
	loading bool
	total   int
	pending string
	note    string
	drawn   *atomic.Bool
	start   func()

	// run is where the keys come from; waiting: a key is asked for. held
	// are the keys typed while a choice is checked.
	run     *keyRun
	waiting bool
	held    []uv.Event

	done   bool
	chosen int // index into v.rows
	err    error
}

func newPickModel(l Listing, cols, lines int) *pickModel {
	m := &pickModel{l: l, ctx: context.Background(), v: newPickView(l.Rows, defaultPageHeight),
		previews: map[string]Preview{}, asked: map[string]bool{}, own: l.Rows, total: l.Total}
	if l.StartEvery && l.Every != nil {
		m.showEvery, m.listingEvery = true, true
	}
	m.resize(cols, lines)
	return m
}

// previewMsg is a preview that arrived for the row of id.
type previewMsg struct {
	id string
	p  Preview
}

// rowsMsg is the whole listing, from Listing.Refresh.
type rowsMsg struct {
	rows []Row
	err  error
}

// everyMsg is the listing of every directory, from Listing.Every.
type everyMsg struct {
	rows []Row
	err  error
}

// renamedMsg is the answer of Listing.Rename for the row of id.
type renamedMsg struct {
	id, title string
	err       error
}

// stopMsg ends the picker: its context ended (a signal).
type stopMsg struct{ err error }

// askPreview starts reading the selected row's preview, once per row.
func (m *pickModel) askPreview() tea.Cmd {
	i, ok := m.v.chosen()
	if !ok || m.l.Preview == nil || m.asked[m.v.rows[i].ID] {
		return nil
	}
	row, fn := m.v.rows[i], m.l.Preview
	m.asked[row.ID] = true
	return func() tea.Msg { return previewMsg{row.ID, fn(row)} }
}

// listEvery starts listing every directory.
func (m *pickModel) listEvery() tea.Cmd {
	fn, ctx := m.l.Every, m.ctx
	return func() tea.Msg {
		rows, err := fn(ctx)
		return everyMsg{rows, err}
	}
}

// started makes sure the refresh has started: a key was pressed, so the
// first screen has been seen.
func (m *pickModel) started() {
	if m.loading && m.start != nil {
		m.start()
	}
}

// refreshed takes the whole listing in place of the first page.
func (m *pickModel) refreshed(msg rowsMsg) tea.Cmd {
	m.loading = false
	switch {
	case msg.err != nil:
		m.done, m.err = true, msg.err
		return tea.Quit
	case len(msg.rows) == 0:
		m.done, m.err = true, ErrNoRows
		return tea.Quit
	}
	m.own = msg.rows
	if m.showEvery && m.every != nil {
		return nil // this directory's rows wait for Ctrl-A
	}
	m.v.setRows(msg.rows)
	if id := m.pending; id != "" {
		m.pending = ""
		if i := slices.IndexFunc(msg.rows, func(r Row) bool { return r.ID == id }); i >= 0 {
			m.done, m.chosen = true, i
			return tea.Quit
		}
		m.held = nil // typed for a session that is not there
		m.note = "that session is no longer listed (deleted, or its record unreadable); choose another"
	}
	return m.askPreview()
}

// everyListed takes the listing of every directory.
func (m *pickModel) everyListed(msg everyMsg) tea.Cmd {
	m.listingEvery = false
	switch {
	case msg.err != nil:
		m.showEvery = false
		m.note = "cannot list every directory: " + msg.err.Error()
		return nil
	case len(msg.rows) == 0:
		m.showEvery = false
		m.note = "no sessions in any directory"
		return nil
	}
	m.every = msg.rows
	if m.showEvery {
		m.v.setRows(m.every)
	}
	return m.askPreview()
}

// toggleEvery switches between this directory's rows and every
// directory's (Ctrl-A).
func (m *pickModel) toggleEvery() tea.Cmd {
	if m.l.Every == nil {
		return nil
	}
	m.showEvery = !m.showEvery
	switch {
	case !m.showEvery:
		m.listingEvery = false
		m.v.setRows(m.own)
	case m.every != nil:
		m.v.setRows(m.every)
	default:
		m.listingEvery = true
		return m.listEvery()
	}
	return m.askPreview()
}

// renamed takes the answer of a rename.
func (m *pickModel) renamed(msg renamedMsg) {
	if msg.err != nil {
		m.note = "not renamed: " + msg.err.Error()
		return
	}
	for _, rows := range [][]Row{m.own, m.every, m.v.rows} {
		for i := range rows {
			if rows[i].ID == msg.id {
				rows[i].Title = msg.title
			}
		}
	}
	m.v.retitled()
	m.note = "renamed"
}

func (m *pickModel) Init() tea.Cmd {
	cmds := []tea.Cmd{m.askPreview(), m.nextKey()}
	if m.listingEvery {
		cmds = append(cmds, m.listEvery())
	}
	return tea.Batch(cmds...)
}

// nextKey asks for the next key, unless the picker is done or asked
// already.
func (m *pickModel) nextKey() tea.Cmd {
	if m.done || m.waiting || m.run == nil {
		return nil
	}
	m.waiting = true
	return m.run.next()
}

func (m *pickModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case keyMsg:
		m.waiting = false
		if m.done {
			return m, nil // not taken: what reads next has it
		}
		km := m.run.took(msg)
		if m.pending != "" {
			// A choice is being checked: what is typed now is for after
			// it, but Esc, Ctrl-C and Ctrl-D leave.
			if k, ok := km.(tea.KeyPressMsg); !ok || !isLeave(k.String()) {
				m.held = append(m.held, msg.ev)
				return m, m.nextKey()
			}
		}
		var cmd tea.Cmd
		if km != nil {
			_, cmd = m.handle(km)
		}
		return m, tea.Batch(cmd, m.nextKey())
	case inputEndedMsg:
		m.waiting = false
		m.done, m.err = true, ErrCancelled
		return m, tea.Quit
	}
	return m.handle(msg)
}

// isLeave reports whether key k leaves the picker.
func isLeave(k string) bool { return k == "esc" || k == "ctrl+c" || k == "ctrl+d" }

// handle handles one message; keys come as the library's key messages.
func (m *pickModel) handle(msg tea.Msg) (tea.Model, tea.Cmd) {
	v := m.v
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
		return m, nil
	case previewMsg:
		m.previews[msg.id] = msg.p
		return m, nil
	case rowsMsg:
		return m, m.refreshed(msg)
	case everyMsg:
		return m, m.everyListed(msg)
	case renamedMsg:
		m.renamed(msg)
		return m, nil
	case stopMsg:
		m.done, m.err = true, msg.err
		return m, tea.Quit
	case tea.PasteMsg:
		m.started()
		if m.pending != "" {
			return m, nil
		}
		first, _, _ := strings.Cut(normalizeNewlines(msg.Content), "\n")
		if m.renaming {
			m.name += first
			return m, nil
		}
		v.setFilter(v.filter + first)
	case tea.KeyPressMsg:
		m.started()
		k := msg.String()
		switch k {
		case "ctrl+c":
			m.done, m.err = true, ErrInterrupted
			return m, tea.Quit
		case "esc", "ctrl+d":
			if m.renaming && k == "esc" {
				m.renaming, m.note = false, ""
				return m, nil
			}
			m.done, m.err = true, ErrCancelled
			return m, tea.Quit
		}
		if m.pending != "" {
			return m, nil // a choice is being checked
		}
		m.note = ""
		if m.renaming {
			return m, m.renameKey(msg)
		}
		switch k {
		case "enter", "ctrl+k":
			if (k == "enter") == (m.l.Kind == Shells) {
				if k == "enter" {
					m.note = "Ctrl-K stops the selected command"
				}
				break // the key chooses in the other kinds only
			}
			if i, ok := v.chosen(); ok && m.loading && !m.showingEvery() {
				// The row may be gone from the whole listing: held
				// until it comes (refreshed).
				m.pending = v.rows[i].ID
			} else if ok {
				m.done, m.chosen = true, i
				return m, tea.Quit
			}
		case "up", "ctrl+p":
			v.move(-1)
		case "down", "ctrl+n":
			v.move(1)
		case "pgup":
			v.page(-1)
		case "pgdown":
			v.page(1)
		case "home":
			v.move(-len(v.match))
		case "end":
			v.move(len(v.match))
		case "backspace", "ctrl+h":
			v.setFilter(dropLastGrapheme(v.filter))
		case "ctrl+u":
			v.setFilter("")
		case "ctrl+w":
			v.setFilter(killWord(v.filter))
		case "ctrl+r":
			if i, ok := v.chosen(); ok && m.l.Rename != nil {
				m.renaming, m.renameID, m.name = true, v.rows[i].ID, v.rows[i].Title
			}
		case "ctrl+a":
			return m, m.toggleEvery()
		default:
			if msg.Text != "" && msg.Mod&^tea.ModShift == 0 {
				v.setFilter(v.filter + msg.Text)
			}
		}
	}
	return m, m.askPreview()
}

// showingEvery reports whether the rows shown are every directory's.
func (m *pickModel) showingEvery() bool { return m.showEvery && m.every != nil }

// renameKey handles a key typed into the rename input.
func (m *pickModel) renameKey(msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "enter":
		m.renaming = false
		name := strings.TrimSpace(m.name)
		if name == "" {
			m.note = "a session name cannot be empty; not renamed"
			return nil
		}
		i := slices.IndexFunc(m.v.rows, func(r Row) bool { return r.ID == m.renameID })
		if i < 0 {
			return nil
		}
		row, fn, ctx := m.v.rows[i], m.l.Rename, m.ctx
		m.note = "renaming…"
		return func() tea.Msg {
			title, err := fn(ctx, row, name)
			return renamedMsg{row.ID, title, err}
		}
	case "backspace", "ctrl+h":
		m.name = dropLastGrapheme(m.name)
	case "ctrl+u":
		m.name = ""
	case "ctrl+w":
		m.name = killWord(m.name)
	default:
		if msg.Text != "" && msg.Mod&^tea.ModShift == 0 {
			m.name += msg.Text
		}
	}
	return nil
}
