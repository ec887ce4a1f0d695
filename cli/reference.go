package cli

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/alecthomas/kong"
	mangokong "github.com/alecthomas/mango-kong"
	"github.com/muesli/roff"

	"cairn/docs"
)

// HelpCmd is `cairn help [TOPIC]`: a command's help, or a guide of docs/
// (the pages are built into cairn), or with no topic the root help.
type HelpCmd struct {
	Topic []string `arg:"" optional:"" help:"A command (storage trim) or a guide (agents, scripting, ...)."`
}

func (c *HelpCmd) Run(g *Globals) error {
	if len(c.Topic) == 0 {
		return g.help(nil)
	}
	page, isPage := "", false
	if len(c.Topic) == 1 {
		page, isPage = docs.Page(c.Topic[0])
	}
	if isCommand(g.parser.Model.Node, c.Topic) {
		if err := g.help(c.Topic); err != nil {
			return err
		}
		if isPage {
			fmt.Fprintf(g.Stdout, "\nThe guide %s (docs/%s.md):\n\n", c.Topic[0], c.Topic[0])
		}
	} else if !isPage {
		return usageErrorf("no command or guide %q: the guides are %s", strings.Join(c.Topic, " "), strings.Join(docs.Topics(), ", "))
	}
	if isPage {
		_, err := fmt.Fprint(g.Stdout, page)
		return err
	}
	return nil
}

// help prints kong's help of the command path words (the root's when nil).
func (g *Globals) help(words []string) error {
	_, err := g.parser.Parse(append(append([]string(nil), words...), "--help"))
	return err
}

// isCommand reports whether words name a command of the grammar.
func isCommand(n *kong.Node, words []string) bool {
	for _, w := range words {
		var next *kong.Node
		for _, c := range n.Children {
			if c.Name == w || contains(c.Aliases, w) {
				next = c
			}
		}
		if next == nil {
			return false
		}
		n = next
	}
	return true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ManCmd is `cairn man`: the man page of the grammar, in roff.
type ManCmd struct{}

func (c *ManCmd) Run(g *Globals) error {
	at, _ := time.Parse(time.RFC3339, buildTime(readBuildInfo()))
	_, err := fmt.Fprint(g.Term, manPage(g.parser.Model, at))
	return err
}

// manPage is the man page of app, made by mango's kong adapter, dated at
// (no date when at is zero: the page in docs/man must not change by day).
// The adapter prints a command's detailed help as its usage line, so the
// examples are taken out of it and given a section of their own.
func manPage(app *kong.Application, at time.Time) string {
	details := map[*kong.Node]string{}
	var clear func(n *kong.Node)
	clear = func(n *kong.Node) {
		for _, c := range n.Children {
			details[c], c.Detail = c.Detail, ""
			clear(c)
		}
	}
	clear(app.Node)
	defer func() {
		for n, d := range details {
			n.Detail = d
		}
	}()
	page := mangokong.NewManPage(1, app).
		WithSection("Guides", "cairn help TOPIC prints a guide: "+strings.Join(docs.Topics(), ", ")+". They are the pages of docs/ in cairn's source; docs/commands.md is this page in markdown.").
		WithSection("Exit status", "0 done, 1 failed, 2 bad usage, 3 refused (nothing to undo, a revert conflict, a required snapshot denied), 4 busy (another process owns the session).")
	text := page.Build(datedDoc{roff.NewDocument(), at})
	if at.IsZero() {
		text = strings.Replace(text, `"0001-01-01"`, `""`, 1)
	}
	var b strings.Builder
	b.WriteString(text)
	b.WriteString("\n.SH EXAMPLES\n.nf\n")
	for _, path := range sortedKeys(examples) {
		for _, line := range examples[path] {
			b.WriteString(roffLine(line) + "\n")
		}
	}
	b.WriteString(".fi\n")
	return b.String()
}

// roffLine is one line of text for a no-fill block: backslashes and
// dashes escaped, a leading dot or quote made plain.
func roffLine(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}

func sortedKeys(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// datedDoc is a roff document whose heading carries the date given rather
// than the time the page was built.
type datedDoc struct {
	*roff.Document
	at time.Time
}

func (d datedDoc) Heading(section uint, title, description string, _ time.Time) {
	d.Document.Heading(section, title, description, d.at)
}
