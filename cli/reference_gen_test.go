package cli

import (
	"cairn/cli/cmdbase"
	"fmt"
	"strings"

	"github.com/alecthomas/kong"
)

// The generator of docs/commands.md lives with the test that writes it
// (TestReference -update): the cairn command never prints the page.

// commandsMarkdown is docs/commands.md: one heading `cairn COMMAND …` per
// command of app, with its help, arguments, flags and examples.
func commandsMarkdown(app *kong.Application) string {
	var b strings.Builder
	b.WriteString("# cairn command reference\n\n")
	b.WriteString("Generated from the command-line grammar by `go test ./cli -run TestReference -update`; " +
		"change the grammar (`cli/`) and regenerate, never this page. `cairn help COMMAND` prints the same.\n\n")
	b.WriteString("## Global flags\n\nEvery command takes them.\n\n")
	flagTable(&b, app.Flags)
	var walk func(n *kong.Node)
	walk = func(n *kong.Node) {
		for _, c := range n.Children {
			if c.Hidden && n.DefaultCmd != c {
				continue
			}
			if len(c.Children) == 0 {
				commandSection(&b, c)
			}
			walk(c)
		}
	}
	walk(app.Node)
	return b.String()
}

func commandSection(b *strings.Builder, n *kong.Node) {
	summary := n.Summary()
	if n.Parent != nil && n.Parent.DefaultCmd == n && n.Hidden {
		// snapshots' hidden list: `cairn snapshots [flags]`.
		summary = strings.TrimSpace(strings.Replace(summary, " "+n.Name, "", 1))
	}
	fmt.Fprintf(b, "## cairn %s\n\n", summary)
	if n.Help != "" {
		fmt.Fprintf(b, "%s\n\n", n.Help)
	}
	if len(n.Positional) > 0 {
		b.WriteString("| argument | meaning |\n|---|---|\n")
		for _, p := range n.Positional {
			fmt.Fprintf(b, "| `%s` | %s |\n", p.Summary(), cell(p.Help))
		}
		b.WriteString("\n")
	}
	var flags []*kong.Flag
	for _, f := range n.Flags {
		if !f.Hidden {
			flags = append(flags, f)
		}
	}
	flagTable(b, flags)
	if lines := examples[cmdbase.CommandPath(n)]; len(lines) > 0 {
		b.WriteString("```sh\n" + strings.Join(lines, "\n") + "\n```\n\n")
	}
}

func flagTable(b *strings.Builder, flags []*kong.Flag) {
	rows := 0
	for _, f := range flags {
		if f.Hidden {
			continue
		}
		if rows == 0 {
			b.WriteString("| flag | meaning |\n|---|---|\n")
		}
		rows++
		name := "--" + f.Name
		if f.Tag.Negatable != "" {
			name = "--[no-]" + f.Name
		}
		if f.Short != 0 {
			name = fmt.Sprintf("-%c, %s", f.Short, name)
		}
		if !f.IsBool() && !f.IsCounter() {
			name += "=" + f.FormatPlaceHolder()
		}
		fmt.Fprintf(b, "| `%s` | %s |\n", name, cell(kong.DefaultHelpValueFormatter(f.Value)))
	}
	if rows > 0 {
		b.WriteString("\n")
	}
}

// cell is text for one cell of a markdown table.
func cell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.Join(strings.Fields(s), " ")
}
