package cli

import (
	"errors"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

// The REPL's words are a shell's, expanding nothing: quotes and
// backslashes as sh reads them, # a plain character, and anything a shell
// would expand or read as an operator refused.
func TestShellWords(t *testing.T) {
	for _, c := range []struct {
		line string
		want []string // nil: refused
	}{
		{``, []string{}},
		{`"my file.txt" 'a b' "c"`, []string{"my file.txt", "a b", "c"}},
		{`my\ file.txt x\\y \*`, []string{"my file.txt", `x\y`, "*"}},
		{`"a\"b\$c\x" 'it"s'`, []string{`a"b$c\x`, `it"s`}},
		{`"it's" ''`, []string{"it's", ""}},
		{"  a \t b  ", []string{"a", "b"}},
		{`restore #2`, []string{"restore", "#2"}},
		{`#1 a#b '#' #`, []string{"#1", "a#b", "#", "#"}},
		{`--session=S --yes -- -x`, []string{"--session=S", "--yes", "--", "-x"}},
		{`a=b !x`, []string{"a=b", "!x"}},
		{`$HOME`, nil},
		{`"$x"`, nil},
		{`$(ls)`, nil},
		{"`ls`", nil},
		{`$'a\nb'`, nil},
		{`*.txt`, nil},
		{`a?`, nil},
		{`{a,b}`, nil},
		{`~/x`, nil},
		{`a;b`, nil},
		{`a|b`, nil},
		{`<x`, nil},
		{`(`, nil},
		{`"unterminated`, nil},
		{`it's`, nil},
	} {
		got, err := shellWords(c.line)
		switch {
		case c.want == nil && !errors.Is(err, errNotWords):
			t.Errorf("%q: %q, %v; want it refused", c.line, got, err)
		case c.want != nil && (err != nil || !slices.Equal(got, c.want)):
			t.Errorf("%q: %q, %v; want %q", c.line, got, err, c.want)
		}
	}
}

// The grammar builds (a broken one fails here, not at a person's first
// command), and every command has a Run method, a help string for /help,
// and a line mode the REPL knows.
func TestReplGrammar(t *testing.T) {
	k, err := kong.New(&replCLI{}, replParserOptions(io.Discard, func(int) {})...)
	if err != nil {
		t.Fatal(err)
	}
	var leaves func(n *kong.Node) []*kong.Node
	leaves = func(n *kong.Node) []*kong.Node {
		if len(n.Children) == 0 {
			return []*kong.Node{n}
		}
		var out []*kong.Node
		for _, c := range n.Children {
			out = append(out, leaves(c)...)
		}
		return out
	}
	for _, n := range k.Model.Children {
		if n.Help == "" {
			t.Errorf("%s has no help", n.Name)
		}
		switch m := n.Tag.Get("line"); m {
		case "", "rest", "raw", "text":
		default:
			t.Errorf("%s: line mode %q", n.Name, m)
		}
		if !strings.ContainsAny(n.Name[:1], "/:!") {
			t.Errorf("%s does not start with / : or !", n.Name)
		}
		for _, l := range leaves(n) {
			if _, ok := l.Target.Addr().Type().MethodByName("Run"); !ok {
				t.Errorf("%s (%s) has no Run method", n.Name, l.Target.Type())
			}
			// A Run promoted from an embedded plumbing command would run
			// that command, on another session.
			if m, _ := l.Target.Addr().Type().MethodByName("Run"); m.Type != nil && m.Type.NumIn() > 1 && m.Type.In(1) == reflect.TypeFor[*Globals]() {
				t.Errorf("%s runs the plumbing's Run", n.Name)
			}
		}
	}
}
