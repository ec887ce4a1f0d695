package term

import (
	"fmt"
	"strings"

	"cairn/cli/display"
)

// Preview is what the picker shows of the selected row, beside or below
// the list (Listing.Preview).
type Preview struct {
	// Turns are the last turns of the conversation, oldest first.
	Turns []PreviewTurn
	// Files are the files the session's recorded changes touched, newest
	// first.
	Files []string
	// Text is said when there is nothing else to show: that there is no
	// prompt yet, or why the session could not be read.
	Text string
}

// PreviewTurn is a prompt and the answer it got ("" when none yet).
type PreviewTurn struct {
	Prompt, Answer string
}

// previewTurnLines is the most lines one prompt or one answer takes.
const previewTurnLines = 4

// previewPane is the selected row's preview in exactly h lines of at most
// w cells: "…" until it has been read.
func (m *pickModel) previewPane(w, h int) []string {
	var lines []string
	if i, ok := m.v.chosen(); ok {
		if p, known := m.previews[m.v.rows[i].ID]; known {
			lines = previewLines(p, w, h)
		} else {
			lines = []string{"…"}
		}
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return lines[:max(0, h)]
}

// previewLines lays p out in at most h lines of at most w cells: the newest
// turns that fit (a prompt marked "> ", its answer indented below it), then
// the files changed, one a line when there is room (at most a third of the
// lines when there are turns to show), else on one line.
func previewLines(p Preview, w, h int) []string {
	if h <= 0 || w <= 2 {
		return nil
	}
	if len(p.Turns) == 0 && len(p.Files) == 0 {
		return wrapped("", p.Text, w, h)
	}
	var files []string
	if n := len(p.Files); n > 0 {
		room := min(n+1, max(1, h/3))
		if len(p.Turns) == 0 {
			room = min(n+1, h)
		}
		if room > n {
			// One file a line.
			files = append(files, cutTo(fmt.Sprintf("files changed (%d):", n), w+1))
			for _, f := range p.Files {
				files = append(files, "  "+cutLeft(display.Line(f), w-2))
			}
		} else {
			// No room for a list: the names on one line, as many as fit.
			names := make([]string, n)
			for i, f := range p.Files {
				names[i] = display.Line(f)
			}
			files = append(files, cutTo(fmt.Sprintf("files changed (%d): %s", n, strings.Join(names, ", ")), w+1))
		}
	}
	room := h - len(files)
	if len(files) > 0 && h >= 8 {
		room-- // a blank line between the turns and the files
	}
	var turns []string
	for k := len(p.Turns) - 1; k >= 0; k-- {
		t := wrapped("> ", p.Turns[k].Prompt, w, previewTurnLines)
		if a := p.Turns[k].Answer; a != "" {
			t = append(t, wrapped("  ", a, w, previewTurnLines)...)
		}
		if len(turns)+len(t) > room {
			if len(turns) == 0 {
				turns = t[:max(0, room)] // the newest turn, cut
			}
			break
		}
		turns = append(t, turns...)
	}
	out := turns
	if len(files) > 0 {
		if len(out) > 0 && h >= 8 {
			out = append(out, "")
		}
		out = append(out, files...)
	}
	return out[:min(len(out), h)]
}

// wrapped is text on one paragraph (its spaces and line breaks made single
// spaces, every control character escaped), wrapped to w cells by words and
// cut to n lines, the first starting with prefix and the others indented as
// deep.
func wrapped(prefix, text string, w, n int) []string {
	t := display.Line(strings.Join(strings.Fields(text), " "))
	indent := strings.Repeat(" ", cells(prefix))
	body := max(1, w-cells(prefix))
	lines := wrapCells(t, body)
	if len(lines) > n {
		lines = lines[:n]
		lines[n-1] = cutCells(strings.TrimRight(lines[n-1], " "), body-1, "") + "…"
	}
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
		if i == 0 {
			lines[i] = prefix + lines[i]
		} else {
			lines[i] = indent + lines[i]
		}
	}
	return lines
}
