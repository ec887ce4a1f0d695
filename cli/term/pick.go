package term

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	tea "charm.land/bubbletea/v2"
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
// may be slow. in must be a terminal (else ErrNotTerminal); it is in raw
// mode until Pick returns, and what Pick drew is wiped.
//
// Cancelling ctx ends Pick at once (it returns an error), with the
// terminal restored: for leaving on a signal.
func Pick(ctx context.Context, in *os.File, out io.Writer, rows []Row, preview func(Row) string) (int, error) {
	if len(rows) == 0 {
		return 0, ErrNoRows
	}
	fd, err := terminalFD(in)
	if err != nil {
		return 0, err
	}
	opts := []tea.ProgramOption{tea.WithInput(in), tea.WithOutput(out), tea.WithoutSignalHandler(), tea.WithoutCatchPanics(),
		tea.WithContext(ctx)}
	if c, _ := screenSize(out); c == 0 {
		if c, r, err := xterm.GetSize(fd); err == nil && c > 0 {
			opts = append(opts, tea.WithWindowSize(c, r))
		}
	}
	m := newPickModel(rows, 0, 0, preview)
	final, err := tea.NewProgram(m, opts...).Run()
	if err != nil {
		return 0, err
	}
	r := final.(*pickModel)
	return r.chosen, r.err
}

// pickModel is the picker as a terminal program: a pickView drawn to the
// window's size.
type pickModel struct {
	v             *pickView
	width, height int // the window, 0 = unknown
	preview       func(Row) string
	previews      map[int]string // by row, once known
	asked         map[int]bool

	done   bool
	chosen int
	err    error
}

func newPickModel(rows []Row, cols, lines int, preview func(Row) string) *pickModel {
	m := &pickModel{v: newPickView(rows, defaultPageHeight), preview: preview,
		previews: map[int]string{}, asked: map[int]bool{}}
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

// previewMsg is a preview that arrived for row i.
type previewMsg struct {
	i    int
	text string
}

// askPreview starts reading the selected row's preview, once per row.
func (m *pickModel) askPreview() tea.Cmd {
	i, ok := m.v.chosen()
	if !ok || m.preview == nil || m.asked[i] {
		return nil
	}
	m.asked[i] = true
	row, fn := m.v.rows[i], m.preview
	return func() tea.Msg { return previewMsg{i, fn(row)} }
}

func (m *pickModel) Init() tea.Cmd { return m.askPreview() }

func (m *pickModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	v := m.v
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
		return m, nil
	case previewMsg:
		m.previews[msg.i] = msg.text
		return m, nil
	case tea.PasteMsg:
		first, _, _ := strings.Cut(normalizeNewlines(msg.Content), "\n")
		v.setFilter(v.filter + first)
	case tea.KeyPressMsg:
		switch msg.String() {
		case "enter":
			if i, ok := v.chosen(); ok {
				m.done, m.chosen = true, i
				return m, tea.Quit
			}
		case "esc", "ctrl+c", "ctrl+d":
			m.done, m.err = true, ErrCancelled
			return m, tea.Quit
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
	return tea.NewView(strings.Join(m.frame(), "\n"))
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
	foot := fmt.Sprintf("%d of %d", n, len(v.match))
	if v.filter != "" {
		foot += fmt.Sprintf(" (%d in all)", len(v.rows))
	}
	foot += "  Up/Down move, PgUp/PgDn page, Enter choose, Esc leave"
	lines = append(lines, m.fit(foot))
	if m.preview != nil {
		text := "…"
		if p, ok := m.previews[sel]; ok {
			text = p
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
	title := display.Line(r.Title)
	if title == "" {
		title = "(untitled)"
	}
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
