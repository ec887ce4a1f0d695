package cli

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/alecthomas/kong"
	xterm "golang.org/x/term"

	"cairn/docs"
)

// helpPrinter is kong's help with, for `cairn --help`, the REPL's own
// flags: plain `cairn` runs the REPL (the default command), and its flags
// were only listed by `cairn run --help`.
func helpPrinter(options kong.HelpOptions, ctx *kong.Context) error {
	if ctx.Selected() != nil {
		return kong.DefaultHelpPrinter(options, ctx)
	}
	var b bytes.Buffer
	out := ctx.Stdout
	ctx.Stdout = &b
	err := kong.DefaultHelpPrinter(options, ctx)
	ctx.Stdout = out
	if err != nil {
		return err
	}
	text := b.String()
	usage := "Usage: " + ctx.Model.Name + " <command> [flags]"
	text = strings.Replace(text, usage+"\n", fmt.Sprintf("Usage: %[1]s [flags]            the line REPL (%[1]s run)\n       %[1]s <command> [flags]\n", ctx.Model.Name), 1)
	if section := replFlags(ctx.Model, helpWidth(out)); section != "" {
		text = strings.Replace(text, "\nCommands:\n", "\n"+section+"\nCommands:\n", 1)
	}
	// The last line points at the guides as well as a command's help.
	name := ctx.Model.Name
	text = strings.Replace(text, fmt.Sprintf("Run \"%s <command> --help\" for more information on a command.", name),
		fmt.Sprintf("Run \"%[1]s help COMMAND\" (or \"%[1]s COMMAND --help\") for a command's help and examples,\n"+
			"\"%[1]s help TOPIC\" for a guide: %[2]s;\n\"%[1]s man\" prints the man page.", name, strings.Join(docs.Topics(), ", ")), 1)
	_, err = fmt.Fprint(out, text)
	return err
}

// helpWidth is the width help is fitted to: the terminal's, else 80.
func helpWidth(w any) int {
	if f, ok := w.(*os.File); ok {
		if c, _, err := xterm.GetSize(int(f.Fd())); err == nil && c > 0 {
			return c
		}
	}
	return 80
}

// replFlags lists the flags of the default command (the REPL), as kong
// lists the global ones.
func replFlags(app *kong.Application, width int) string {
	var run *kong.Node
	for _, c := range app.Children {
		if c.Name == "run" {
			run = c
		}
	}
	if run == nil {
		return ""
	}
	type row struct{ left, help string }
	var rows []row
	wide := 0
	for _, f := range run.Flags {
		if f.Hidden {
			continue
		}
		left := "    "
		if f.Short != 0 {
			left = fmt.Sprintf("-%c, ", f.Short)
		}
		left += "--" + f.Name
		if !f.IsBool() {
			left += "=" + f.FormatPlaceHolder()
		}
		rows = append(rows, row{left, kong.DefaultHelpValueFormatter(f.Value)})
		wide = max(wide, len(left))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Flags of the line REPL (%s, %s run):\n", app.Name, app.Name)
	for _, r := range rows {
		fmt.Fprintf(&b, "  %-*s    %s\n", wide, r.left, r.help)
	}
	return fitText(b.String(), width)
}
