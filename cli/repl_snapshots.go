package cli

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"cairn/cli/display"
	"cairn/cli/term"
	"cairn/engine"
)

// The REPL's file tools and undo stack (seed 001): the tool lines
// `:write PATH` (then lines, ended by a line holding only "."),
// `:edit PATH OLD NEW` (shell-style quoting), `:rm PATH` and `:patch`
// (cli/patch.go), and the
// commands /undo, /redo, /snapshots and /snapshots restore ID.

// bindSnapshotKeys binds Alt+Z, Alt+R and F9 where the terminal sends them,
// and the leader keys: the leader (Ctrl-X unless --leader says otherwise),
// then z, r or p.
func (r *repl) bindSnapshotKeys() {
	if r.ed == nil {
		return
	}
	for _, b := range [][2]string{
		{"alt+z", "/undo"}, {"alt+r", "/redo"}, {"f9", "/snapshots"},
		{"leader z", "/undo"}, {"leader r", "/redo"}, {"leader p", "/snapshots"},
	} {
		r.ed.Bind(b[0], b[1])
	}
}

// toolLine runs a :write, :edit, :rm or :patch line; it reports false for any other
// line, which is then handled elsewhere. text is the line as typed or
// pasted: a :write's or a :patch's content may follow its first line.
func (r *repl) toolLine(ctx context.Context, text string) bool {
	line, body, _ := strings.Cut(strings.TrimLeftFunc(text, unicode.IsSpace), "\n")
	line = strings.TrimSpace(line)
	multi := strings.TrimSpace(body) != ""
	if multi {
		body = blockContent(body)
	}
	name, rest, _ := strings.Cut(line, " ")
	var run func() (*engine.ToolAnswer, error)
	if multi && (name == ":edit" || name == ":rm") {
		fmt.Fprintf(r.out, "%s takes one line; nothing was changed.\n", name)
		return true
	}
	switch name {
	case ":exec":
		if multi {
			fmt.Fprintln(r.out, ":exec takes one line; nothing was run.")
			return true
		}
		r.execLine(ctx, rest, false) // cli/exec.go
		return true
	case ":write":
		path := pathArg(rest)
		if path == "" {
			fmt.Fprintln(r.out, "Usage: :write PATH, then the lines, then a line holding only \".\"")
			return true
		}
		// A text of several lines (pasted, or typed with Alt+Enter) holds
		// the content after its first line; else the lines that follow do.
		content, ok := body, true
		if !multi {
			content, ok = r.readBlock()
		}
		if !ok {
			fmt.Fprintln(r.out, "Cancelled before the line holding only \".\"; nothing was written.")
			return true
		}
		run = func() (*engine.ToolAnswer, error) { return r.sess.ToolWrite(ctx, path, []byte(content)) }
	case ":edit":
		args, err := splitShell(rest)
		if err != nil || len(args) != 3 {
			fmt.Fprintln(r.out, "Usage: :edit PATH OLD NEW (quote words holding spaces)")
			return true
		}
		run = func() (*engine.ToolAnswer, error) { return r.sess.ToolEdit(ctx, args[0], args[1], args[2]) }
	case ":patch":
		var ok bool
		if run, ok = r.patchLine(ctx, pathArg(rest), body, multi); !ok {
			return true
		}
	case ":rm":
		path := pathArg(rest)
		if path == "" {
			fmt.Fprintln(r.out, "Usage: :rm PATH")
			return true
		}
		run = func() (*engine.ToolAnswer, error) { return r.sess.ToolRm(ctx, path) }
	default:
		return false
	}
	a, err := run()
	if errors.Is(err, context.Canceled) {
		// The tools are atomic: a cancelled one changed nothing.
		fmt.Fprintln(r.out, "\nCancelled; nothing was changed.")
		return true
	}
	if err != nil {
		fmt.Fprintln(r.out, "cairn:", userError(refusedLine(err)))
		return true
	}
	printToolAnswer(r.out, r.ws, a)
	// A tool line is its own turn: durable once shown.
	if err := r.sess.Commit(r.g.ctx); err != nil {
		fmt.Fprintln(r.out, "cairn: the change is made but may not survive a crash:", userError(err))
	}
	return true
}

// blockContent is the content of a :write or a :patch given in one text
// with it (pasted, or typed with Alt+Enter): the lines after the first, as
// they are (tabs, blank lines and trailing blanks kept), ending with a line
// feed. A last line holding only "." ends the content as it ends the typed
// form, so pasting the shape /help shows writes no "." line.
func blockContent(body string) string {
	b := strings.TrimSuffix(body, "\n")
	if b == "." {
		return ""
	}
	if strings.HasSuffix(b, "\n.") {
		return strings.TrimSuffix(b, ".")
	}
	return b + "\n"
}

// readBlock reads the lines of a :write up to a line holding only ".".
func (r *repl) readBlock() (string, bool) {
	var b strings.Builder
	for {
		var line string
		var err error
		if r.ed != nil {
			line, err = r.ed.ReadLine("... ")
		} else {
			line, err = r.readLine()
		}
		if errors.Is(err, term.ErrInterrupted) {
			return "", false
		}
		if err != nil {
			return "", false
		}
		if line == "." {
			return b.String(), true
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
}

// snapCommand runs /undo, /redo, /snapshots and /snapshots restore ID.
func (r *repl) snapCommand(name, arg string) {
	var res *engine.RestoreResult
	var err error
	switch {
	case name == "/undo":
		res, err = r.sess.Undo(r.g.ctx)
	case name == "/redo":
		res, err = r.sess.Redo(r.g.ctx)
	case arg == "":
		l, err := r.sess.Snapshots(r.g.ctx)
		if err != nil {
			fmt.Fprintln(r.out, "cairn:", userError(err))
			return
		}
		printSnapshots(r.out, r.ws, l, time.Now())
		return
	default:
		sub, id, _ := strings.Cut(arg, " ")
		id = strings.TrimSpace(id)
		if sub != "restore" || id == "" {
			fmt.Fprintln(r.out, "Usage: /snapshots, or /snapshots restore ID (the # the list shows, an id, or a unique prefix)")
			return
		}
		full, msg := r.snapshotRef(id)
		if msg != "" {
			fmt.Fprintln(r.out, msg)
			return
		}
		res, err = r.sess.RestoreTo(r.g.ctx, full)
	}
	if err != nil {
		fmt.Fprintln(r.out, "cairn:", userError(restoreRefusal(r.ws, err, "/snapshots restore")))
		return
	}
	printRestore(r.out, r.ws, res)
	fmt.Fprintln(r.out, "The conversation is unchanged: tell the agent what you did.")
}

// snapshotRef turns what /snapshots restore was given into a snapshot id:
// the # the list shows, an id, or a unique prefix of one. msg says why
// nothing was found.
func (r *repl) snapshotRef(ref string) (id, msg string) {
	l, err := r.sess.Snapshots(r.g.ctx)
	if err != nil {
		return "", "cairn: " + userError(err)
	}
	return snapshotRef(l, ref, "/snapshots")
}

// snapshotRef finds ref in l: the # the list shows, an id, or a unique
// prefix of one. A reference that matches none is returned as it is (the
// engine names what is wrong with it); msg says why a # or a prefix names
// no snapshot or several, naming list, the command that lists them.
func snapshotRef(l *engine.SnapshotList, ref, list string) (id, msg string) {
	if strings.TrimSpace(ref) == "" {
		return "", fmt.Sprintf("No snapshot named: give the # %s shows, an id, or a unique prefix.", list)
	}
	if n, err := strconv.Atoi(strings.TrimPrefix(ref, "#")); err == nil {
		if n < 1 || n > len(l.Snapshots) {
			return "", fmt.Sprintf("No snapshot #%d: %s lists %s.", n, list, plural(len(l.Snapshots), "snapshot", "snapshots"))
		}
		return l.Snapshots[n-1].ID, ""
	}
	var found []string
	for _, s := range l.Snapshots {
		if s.ID == ref {
			return ref, ""
		}
		if strings.HasPrefix(s.ID, ref) {
			found = append(found, s.ID)
		}
	}
	switch len(found) {
	case 0:
		return ref, "" // the engine names what is wrong with it
	case 1:
		return found[0], ""
	}
	return "", fmt.Sprintf("%q starts %d snapshot ids; give more of it, or the # %s shows.", display.Line(ref), len(found), list)
}

// pathArg is the PATH of a tool line that takes one (:write, :rm, :attach,
// :patch FILE): one shell word, quoted as :edit's words are ("my file.txt",
// my\ file.txt), or else the rest of the line as it is (my file.txt). A
// name holding spaces works either way, and quotes never end up in a
// file's name.
func pathArg(rest string) string {
	rest = strings.TrimSpace(rest)
	if w, err := splitShell(rest); err == nil && len(w) == 1 {
		return w[0]
	}
	return rest
}

// splitShell splits a line into words as a POSIX shell does, without
// expansions: 'single quotes' keep everything, "double quotes" take
// backslash before $ ` " \ and newline, and a backslash outside quotes
// keeps the next character.
func splitShell(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\\':
			inWord = true
			if i+1 < len(rs) {
				i++
				cur.WriteRune(rs[i])
			}
		case c == '\'':
			inWord = true
			j := i + 1
			for j < len(rs) && rs[j] != '\'' {
				j++
			}
			if j == len(rs) {
				return nil, errors.New("unterminated single quote")
			}
			cur.WriteString(string(rs[i+1 : j]))
			i = j
		case c == '"':
			inWord = true
			j := i + 1
			for ; j < len(rs) && rs[j] != '"'; j++ {
				if rs[j] == '\\' && j+1 < len(rs) && strings.ContainsRune("$`\"\\\n", rs[j+1]) {
					j++
				}
				cur.WriteRune(rs[j])
			}
			if j == len(rs) {
				return nil, errors.New("unterminated double quote")
			}
			i = j
		default:
			inWord = true
			cur.WriteRune(c)
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
