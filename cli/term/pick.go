package term

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	xterm "golang.org/x/term"

	"cairn/cli/display"
)

// defaultPageHeight is the page height when out's size is unknown.
const defaultPageHeight = 20

// Pick shows rows (sorted newest first by the caller) below the cursor and
// lets the user choose one; it returns its index into rows. Typing filters
// fuzzily by title and id; Up/Down move, PgUp/PgDn page, Home/End go to
// the first/last row, Enter chooses, Esc, Ctrl-C or Ctrl-D leave with
// ErrCancelled. Every row can be reached. The picture follows the window's
// size. preview, when not nil, gives the line shown under the list for the
// selected row (the session's last prompt); it runs in the background and
// may be slow. The keys come from keys; the terminal is in raw mode until
// Pick returns, and what Pick drew is wiped. Keys typed after the one that
// ended the picker stay in keys for what reads next.
//
// Cancelling ctx ends Pick at once (it returns an error), with the
// terminal restored: for leaving on a signal.
func Pick(ctx context.Context, keys *Keys, out io.Writer, rows []Row, preview func(Row) string) (int, error) {
	m, err := runPick(ctx, keys, out, Listing{Rows: rows}, preview)
	if err != nil {
		return 0, err
	}
	return m.chosen, m.err
}

// Listing is what PickListing shows: Rows at once, and, when Refresh is not
// nil, the listing Refresh returns in their place once it is ready.
type Listing struct {
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
}

// PickListing is Pick over a listing that may arrive in two steps: the
// first screen is drawn from l.Rows without waiting for l.Refresh, and the
// choice is the row as the refreshed listing has it. A row chosen before
// the refresh is done is held ("checking") until it is: when the refresh
// no longer lists it (deleted, or its record unreadable), the picker says
// so and stays open for another choice, so such a row is never returned.
// The keys typed while a choice is checked wait for what reads next (the
// REPL's first prompt), unless the row is gone; Esc and Ctrl-C still leave.
// A refresh that fails ends the picker with its error; one that lists
// nothing, with ErrNoRows.
func PickListing(ctx context.Context, keys *Keys, out io.Writer, l Listing, preview func(Row) string) (Row, error) {
	m, err := runPick(ctx, keys, out, l, preview)
	if err != nil {
		return Row{}, err
	}
	if m.err != nil {
		return Row{}, m.err
	}
	return m.v.rows[m.chosen], nil
}

// runPick runs the picker program and returns its final model.
func runPick(ctx context.Context, keys *Keys, out io.Writer, l Listing, preview func(Row) string) (*pickModel, error) {
	if len(l.Rows) == 0 {
		return nil, ErrNoRows
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
	m := newPickModel(l.Rows, 0, 0, preview)
	m.run = run
	m.total = l.Total
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
	opts := []tea.ProgramOption{tea.WithInput(nil), tea.WithOutput(out), tea.WithoutSignalHandler(), tea.WithoutCatchPanics(),
		tea.WithContext(ctx)}
	if c, _ := screenSize(out); c == 0 {
		if c, r, err := xterm.GetSize(keys.fd); err == nil && c > 0 {
			opts = append(opts, tea.WithWindowSize(c, r))
		}
	}
	p := tea.NewProgram(m, opts...)
	rctx, cancel := context.WithCancel(ctx)
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
	v             *pickView
	width, height int // the window, 0 = unknown
	preview       func(Row) string
	previews      map[string]string // by row id, once known
	asked         map[string]bool

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

func newPickModel(rows []Row, cols, lines int, preview func(Row) string) *pickModel {
	m := &pickModel{v: newPickView(rows, defaultPageHeight), preview: preview,
		previews: map[string]string{}, asked: map[string]bool{}}
	m.resize(cols, lines)
	return m
}

// resize sizes the page to the window: the filter line, the rows, the
// footer, the preview line and one spare line, so the picture never
// scrolls off the top.
func (m *pickModel) resize(cols, lines int) {
	m.width, m.height = cols, lines
	h := defaultPageHeight
	if lines > 0 {
		h = lines - 3
		if m.preview != nil {
			h--
		}
	}
	m.v.setHeight(h)
}

// previewMsg is a preview that arrived for the row of id.
type previewMsg struct {
	id   string
	text string
}

// rowsMsg is the whole listing, from Listing.Refresh.
type rowsMsg struct {
	rows []Row
	err  error
}

// askPreview starts reading the selected row's preview, once per row.
func (m *pickModel) askPreview() tea.Cmd {
	i, ok := m.v.chosen()
	if !ok || m.preview == nil || m.asked[m.v.rows[i].ID] {
		return nil
	}
	row, fn := m.v.rows[i], m.preview
	m.asked[row.ID] = true
	return func() tea.Msg { return previewMsg{row.ID, fn(row)} }
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

func (m *pickModel) Init() tea.Cmd { return tea.Batch(m.askPreview(), m.nextKey()) }

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
		m.previews[msg.id] = msg.text
		return m, nil
	case rowsMsg:
		return m, m.refreshed(msg)
	case tea.PasteMsg:
		m.started()
		if m.pending != "" {
			return m, nil
		}
		first, _, _ := strings.Cut(normalizeNewlines(msg.Content), "\n")
		v.setFilter(v.filter + first)
	case tea.KeyPressMsg:
		m.started()
		k := msg.String()
		if isLeave(k) {
			m.done, m.err = true, ErrCancelled
			return m, tea.Quit
		}
		if m.pending != "" {
			return m, nil // a choice is being checked
		}
		m.note = ""
		switch k {
		case "enter":
			if i, ok := v.chosen(); ok && m.loading {
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
			if r := []rune(v.filter); len(r) > 0 {
				v.setFilter(string(r[:len(r)-1]))
			}
		case "ctrl+u":
			v.setFilter("")
		case "ctrl+w":
			v.setFilter(killWord(v.filter))
		default:
			if msg.Text != "" && msg.Mod&^tea.ModShift == 0 {
				v.setFilter(v.filter + msg.Text)
			}
		}
	}
	return m, m.askPreview()
}

func (m *pickModel) View() tea.View {
	if m.done {
		return tea.NewView("") // the picture is wiped
	}
	f := m.frame()
	if m.drawn != nil {
		m.drawn.Store(true)
	}
	return tea.NewView(strings.Join(f, "\n"))
}

// frame returns the lines of one picture: the filter line, the page of
// rows (the selected one marked and in reverse video), the footer and the
// preview of the selected row.
func (m *pickModel) frame() []string {
	v := m.v
	lines := []string{m.fit("filter: " + drawn(v.filter))}
	sel, _ := v.chosen()
	for _, i := range v.window() {
		mark := "  "
		if i == sel {
			mark = "> "
		}
		s := m.fit(mark + pickRow(v.rows[i], m.width-3))
		if i == sel {
			s = "\x1b[7m" + s + "\x1b[0m"
		}
		lines = append(lines, s)
	}
	n := 0
	if len(v.match) > 0 {
		n = v.sel + 1
	}
	all := len(v.rows)
	if m.loading {
		all = max(all, m.total)
	}
	var foot string
	switch {
	case v.filter != "":
		foot = fmt.Sprintf("%d of %d (%d in all)", n, len(v.match), all)
	default:
		foot = fmt.Sprintf("%d of %d", n, all)
	}
	switch {
	case m.pending != "":
		foot += ", checking the choice"
	case m.loading:
		foot += ", listing"
	}
	if m.note != "" {
		foot += ": " + m.note
	} else {
		foot += "  Up/Down move, PgUp/PgDn page, Enter choose, Esc leave"
	}
	lines = append(lines, m.fit(foot))
	if m.preview != nil {
		text := "…"
		if len(v.match) > 0 {
			if p, ok := m.previews[v.rows[sel].ID]; ok {
				text = p
			}
		}
		if len(v.match) == 0 {
			text = ""
		}
		lines = append(lines, m.fit("last prompt: "+display.Line(text)))
	}
	return lines
}

// fit cuts s to the window's width by display cells, leaving the last
// column free so that a full line never wraps.
func (m *pickModel) fit(s string) string {
	if m.width <= 1 {
		return s
	}
	return ansi.Truncate(s, m.width-1, "…")
}

// pickRow is a row as the picker draws it, in width cells (0 = unknown):
// the id's first 8 characters first, so that a narrow window keeps it, a
// busy mark, then the title in what is left, the age, the items and the
// branch; the whole id when there is room. Every field is escaped by
// display.Line.
func pickRow(r Row, width int) string {
	title := display.Title(r.Title)
	branch := display.Line(r.Branch)
	if branch == "" {
		branch = "-"
	}
	id := display.Line(r.ID)
	short := id
	if textWidth(short) > 8 {
		short = ansi.Truncate(short, 8, "")
	}
	busy := "    "
	if r.Owner != 0 {
		busy = "open"
	}
	items := fmt.Sprintf("%5d items", r.Items)
	if r.Items == 1 {
		items = "    1 item "
	}
	rest := fmt.Sprintf("  %-8s  %s  %s", display.Line(r.Age), items, ansi.Truncate(branch, 12, "…"))
	if r.Owner != 0 {
		rest += fmt.Sprintf("  [open in pid %d]", r.Owner)
	}
	if r.Checkout != "" {
		rest += "  [checkout " + ansi.Truncate(display.Line(r.Checkout), 24, "…") + "]"
	}
	if width > 0 && width >= 8+2+4+2+titleWidth+textWidth(rest)+2+textWidth(id) {
		rest += "  " + id
	}
	tw := titleWidth
	if width > 0 {
		tw = min(titleWidth, max(10, width-(8+2+4+2)-textWidth(rest)))
	}
	return padCells(short, 8) + "  " + busy + "  " + padCells(ansi.Truncate(title, tw, "…"), tw) + rest
}

// padCells fills s with spaces to n cells.
func padCells(s string, n int) string {
	if k := n - textWidth(s); k > 0 {
		return s + strings.Repeat(" ", k)
	}
	return s
}
