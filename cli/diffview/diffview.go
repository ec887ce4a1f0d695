// Package diffview turns what a change did to files (engine.FileChange:
// the content before and after) into what a person reads: a unified diff
// per file, computed by go-udiff (Myers' algorithm, the Go tools' diff),
// and a summary line per file with the lines added and removed. A binary
// file, or one whose content is too large or no longer kept, is named
// with why instead of a diff. Every line of file content is escaped
// (cli/display), so a file cannot drive the terminal; colour, when asked
// for, is the only escape sequence written.
package diffview

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/aymanbagabas/go-udiff"

	"cairn/cli/display"
	"cairn/engine"
)

// Limit is the most bytes of each side of a file that is diffed.
const Limit = 1 << 20

// contextLines is the unchanged lines shown around a change.
const contextLines = 3

// File is one file's diff.
type File struct {
	Path    string `json:"path"`
	Action  string `json:"action"` // create, modify, delete
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
	// Binary: a side holds a NUL byte, as git judges binary content.
	Binary bool `json:"binary,omitempty"`
	// NoDiff says why no diff is shown ("binary", "too large", …); the
	// counts are then zero.
	NoDiff string `json:"no_diff,omitempty"`
	// Mode is a change of kind (file, exec, link), "file -> exec".
	Mode string `json:"mode,omitempty"`

	diff udiff.UnifiedDiff
}

// Of is the diff of one file; path is how it is named.
func Of(path string, fc engine.FileChange) File {
	f := File{Path: path, Action: "modify"}
	switch {
	case !fc.Before.Exists:
		f.Action = "create"
	case !fc.After.Exists:
		f.Action = "delete"
	}
	if fc.Before.Exists && fc.After.Exists && fc.Before.Mode != fc.After.Mode && fc.Before.Mode != "" && fc.After.Mode != "" {
		f.Mode = fc.Before.Mode + " -> " + fc.After.Mode
	}
	for _, c := range []engine.Content{fc.Before, fc.After} {
		if c.Exists && c.Missing != "" && f.NoDiff == "" {
			f.NoDiff = missingText(c)
		}
	}
	if f.NoDiff != "" {
		return f
	}
	if bytes.IndexByte(head(fc.Before.Data), 0) >= 0 || bytes.IndexByte(head(fc.After.Data), 0) >= 0 {
		f.Binary = true
		switch f.Action {
		case "create":
			f.NoDiff = "binary, " + sizeText(fc.After.Size)
		case "delete":
			f.NoDiff = "binary, was " + sizeText(fc.Before.Size)
		default:
			f.NoDiff = fmt.Sprintf("binary, %s, was %s", sizeText(fc.After.Size), sizeText(fc.Before.Size))
		}
		return f
	}
	before, after := string(fc.Before.Data), string(fc.After.Data)
	from, to := "a/"+path, "b/"+path
	if !fc.Before.Exists {
		from = "/dev/null"
	}
	if !fc.After.Exists {
		to = "/dev/null"
	}
	d, err := udiff.ToUnifiedDiff(from, to, before, udiff.Lines(before, after), contextLines)
	if err != nil {
		f.NoDiff = err.Error()
		return f
	}
	f.diff = d
	for _, h := range d.Hunks {
		for _, l := range h.Lines {
			switch l.Kind {
			case udiff.Insert:
				f.Added++
			case udiff.Delete:
				f.Removed++
			}
		}
	}
	return f
}

// missingText says why a side's content cannot be shown.
func missingText(c engine.Content) string {
	switch c.Missing {
	case "too large":
		return "too large to show, " + sizeText(c.Size)
	case "not kept":
		return "its content is no longer kept, " + sizeText(c.Size)
	}
	return "not recorded (" + c.Missing + "), " + sizeText(c.Size)
}

// head is the start of b that git looks at for a NUL byte.
func head(b []byte) []byte { return b[:min(len(b), 8000)] }

func sizeText(n int64) string {
	if n == 1 {
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", n)
}

// SGR sequences of the colours used.
const (
	bold  = "\x1b[1m"
	red   = "\x1b[31m"
	green = "\x1b[32m"
	cyan  = "\x1b[36m"
	reset = "\x1b[m"
)

func paint(on bool, color, s string) string {
	if !on || s == "" {
		return s
	}
	return color + s + reset
}

// Counts is a file's "+N −M", or why it has no diff.
func (f File) Counts(color bool) string {
	if f.NoDiff != "" {
		return f.NoDiff
	}
	return paint(color, green, fmt.Sprintf("+%d", f.Added)) + " " + paint(color, red, fmt.Sprintf("−%d", f.Removed))
}

// WriteSummary writes one line per file: the action, the path and its
// counts, then the totals when there are several files.
func WriteSummary(w io.Writer, files []File, color bool) {
	wide := 0
	for _, f := range files {
		wide = max(wide, len(display.Name(f.Path)))
	}
	added, removed := 0, 0
	for _, f := range files {
		line := fmt.Sprintf("  %-7s %-*s  %s", f.Action, wide, display.Name(f.Path), f.Counts(color))
		if f.Mode != "" {
			line += " (" + f.Mode + ")"
		}
		fmt.Fprintln(w, line)
		added, removed = added+f.Added, removed+f.Removed
	}
	if len(files) > 1 {
		t := File{Added: added, Removed: removed}
		fmt.Fprintf(w, "  %d files changed, %s\n", len(files), t.Counts(color))
	}
}

// WriteDiff writes each file's unified diff (or why there is none).
func WriteDiff(w io.Writer, files []File, color bool) {
	for _, f := range files {
		title := "diff " + display.Name(f.Path)
		if f.Mode != "" {
			title += " (" + f.Mode + ")"
		}
		fmt.Fprintln(w, paint(color, bold, title))
		if f.NoDiff != "" {
			fmt.Fprintf(w, "  no diff: %s\n", f.NoDiff)
			continue
		}
		if len(f.diff.Hunks) == 0 {
			fmt.Fprintln(w, "  (no lines changed)")
			continue
		}
		fmt.Fprintln(w, paint(color, bold, "--- "+display.Line(f.diff.From)))
		fmt.Fprintln(w, paint(color, bold, "+++ "+display.Line(f.diff.To)))
		// The hunk lines as go-udiff writes them (after its two header
		// lines), escaped and coloured.
		lines := strings.SplitAfter(f.diff.String(), "\n")
		for _, l := range lines[min(2, len(lines)):] {
			if l == "" {
				continue
			}
			body := strings.TrimSuffix(l, "\n")
			c := ""
			switch {
			case strings.HasPrefix(body, "@@"):
				c = cyan
			case strings.HasPrefix(body, "+"):
				c = green
			case strings.HasPrefix(body, "-"):
				c = red
			}
			fmt.Fprintln(w, paint(color && c != "", c, display.Text(body)))
		}
	}
}
