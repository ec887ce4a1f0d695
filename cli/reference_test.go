package cli

import (
	"bytes"
	"cairn/cli/cmdbase"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kong"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// TestReference holds docs/commands.md and docs/man/cairn.1 to the
// grammar, and the drawings of docs/format.md to the sources: a command,
// flag, help text or drawn line changed without regenerating them fails
// here. Regenerate with go test ./cli -run TestReference -update.
// newParser is the whole grammar (CLI) with the options given, as the
// command builds it: the reference pages are made from it.
func newParser(grammar any, options ...kong.Option) (*kong.Kong, error) {
	return cmdbase.NewParser(grammar, examplesOf, append([]kong.Option{kong.Help(helpPrinter)}, options...)...)
}

func TestReference(t *testing.T) {
	p, err := newParser(&CLI{})
	if err != nil {
		t.Fatal(err)
	}
	drawn, err := formatDrawings("..")
	if err != nil {
		t.Fatal(err)
	}
	format, err := os.ReadFile("../docs/format.md")
	if err != nil {
		t.Fatal(err)
	}
	formatPage, err := withFormatDrawings(string(format), drawn)
	if err != nil {
		t.Fatal(err)
	}
	table, err := packagesTable("..")
	if err != nil {
		t.Fatal(err)
	}
	embedding, err := os.ReadFile("../docs/embedding.md")
	if err != nil {
		t.Fatal(err)
	}
	embeddingPage, err := between(string(embedding), packagesBegin, packagesEnd, table)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct{ path, want string }{
		{"../docs/embedding.md", embeddingPage},
		{"../docs/commands.md", commandsMarkdown(p.Model)},
		{"../docs/man/cairn.1", manPage(p.Model, time.Time{})},
		{"../docs/format.md", formatPage},
	} {
		if *updateScripts {
			if err := os.WriteFile(f.path, []byte(f.want), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != f.want {
			t.Errorf("%s is stale: regenerate it with go test ./cli -run TestReference -update", f.path)
		}
	}
}

// TestReferenceHeadings: one heading `## cairn COMMAND …` per command of
// the grammar, each with its help and examples.
func TestReferenceHeadings(t *testing.T) {
	p, err := newParser(&CLI{})
	if err != nil {
		t.Fatal(err)
	}
	doc := commandsMarkdown(p.Model)
	for _, path := range referencedCommands(p.Model) {
		if !strings.Contains(doc, "\n## cairn "+path+" ") && !strings.Contains(doc, "\n## cairn "+path+"\n") {
			t.Errorf("no heading for cairn %s", path)
		}
	}
	for _, want := range []string{"\n## cairn storage trim [<SESSION> ...] [flags]\n", "\n## cairn snapshots [flags]\n", "| `--keep-last=N` |", "cairn storage trim --dry-run\n"} {
		if !strings.Contains(doc, want) {
			t.Errorf("reference lacks %q", want)
		}
	}
	man := manPage(p.Model, time.Time{})
	for _, want := range []string{".TH CAIRN 1", "storage trim", "keep-last", "cairn storage trim \\-\\-dry\\-run", ".TH CAIRN 1 \"\""} {
		if !strings.Contains(man, want) {
			t.Errorf("man page lacks %q", want)
		}
	}
}

// referencedCommands are the paths of the commands the reference lists.
func referencedCommands(app *kong.Application) []string {
	var out []string
	var walk func(n *kong.Node)
	walk = func(n *kong.Node) {
		for _, c := range n.Children {
			if c.Hidden && n.DefaultCmd != c {
				continue
			}
			if len(c.Children) == 0 {
				out = append(out, cmdbase.CommandPath(c))
			}
			walk(c)
		}
	}
	walk(app.Node)
	return out
}

// TestEveryCommandHasExample: each command's help shows examples, and each
// example parses with the grammar ($S taken as a session id), so none
// names a command or flag that is gone. A new command needs an entry in
// examples (examples.go).
func TestEveryCommandHasExample(t *testing.T) {
	p, err := newParser(&CLI{})
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, path := range referencedCommands(p.Model) {
		listed[path] = true
		if len(examples[path]) == 0 {
			t.Errorf("cairn %s has no example: add one to examples in cli/examples.go", path)
		}
	}
	for path, lines := range examples {
		if !listed[path] {
			t.Errorf("examples name %q, which is no command", path)
		}
		for _, line := range lines {
			for _, args := range cairnCalls(t, line) {
				var c CLI
				q, err := newParser(&c, kong.Writers(io.Discard, io.Discard), kong.Exit(func(int) {}))
				if err != nil {
					t.Fatal(err)
				}
				kctx, err := q.Parse(cmdbase.RewriteArgs(args))
				if err != nil {
					t.Errorf("example %q of cairn %s does not parse: %v", line, path, err)
					continue
				}
				if got := cmdbase.CommandPath(kctx.Selected()); got != path && !(path == "run" && got == "run") {
					t.Errorf("example %q runs cairn %s, not cairn %s", line, got, path)
				}
			}
		}
	}
	// A command's help shows its examples.
	var out bytes.Buffer
	if code := Main(t.Context(), []string{"storage", "trim", "--help"}, nil, &out, io.Discard); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(out.String(), "Examples:\n\n    cairn storage trim --dry-run\n") {
		t.Errorf("storage trim --help shows no examples:\n%s", out.String())
	}
}

// cairnCalls are the argument lists of the cairn calls in a shell line.
func cairnCalls(t *testing.T, line string) [][]string {
	f, err := syntax.NewParser().Parse(strings.NewReader(line), "")
	if err != nil {
		t.Fatalf("example %q: %v", line, err)
	}
	cfg := &expand.Config{Env: expand.FuncEnviron(func(name string) string {
		if name == "HOME" {
			return "/home/u"
		}
		return "S1"
	})}
	var calls [][]string
	syntax.Walk(f, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok {
			return true
		}
		var args []string
		found := false
		// The last word "cairn" starts the call: claude mcp add ... cairn -- cairn mcp.
		start := -1
		for i, w := range call.Args {
			if w.Lit() == "cairn" {
				start = i
			}
		}
		for i, w := range call.Args {
			if !found {
				found = i == start
				continue
			}
			s, err := expand.Literal(cfg, w)
			if err != nil {
				t.Fatalf("example %q: %v", line, err)
			}
			args = append(args, s)
		}
		if found {
			calls = append(calls, args)
		}
		return true
	})
	if len(calls) == 0 {
		t.Errorf("example %q runs no cairn", line)
	}
	return calls
}

// TestVersionText: --version says the module version, the VCS revision
// and time when the build carries them, and devel without them.
func TestVersionText(t *testing.T) {
	stamped := &debug.BuildInfo{Main: debug.Module{Path: "cairn", Version: "v0.0.0-20261204135212-b53b039a1c2d+dirty"}, Settings: []debug.BuildSetting{
		{Key: "-buildmode", Value: "exe"},
		{Key: "vcs", Value: "git"},
		{Key: "vcs.revision", Value: "b53b039a1c2d4e5f60718293a4b5c6d7e8f90123"},
		{Key: "vcs.time", Value: "2026-12-04T13:52:12Z"},
		{Key: "vcs.modified", Value: "true"},
	}}
	clean := &debug.BuildInfo{Main: debug.Module{Path: "cairn", Version: "v0.0.0-20261204135212-b53b039a1c2d"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "b53b039a1c2d4e5f60718293a4b5c6d7e8f90123"},
		{Key: "vcs.time", Value: "2026-12-04T13:52:12Z"},
		{Key: "vcs.modified", Value: "false"},
	}}
	unstamped := &debug.BuildInfo{Main: debug.Module{Path: "cairn", Version: "(devel)"}, Settings: []debug.BuildSetting{{Key: "-buildmode", Value: "exe"}}}
	for _, c := range []struct {
		bi   *debug.BuildInfo
		ok   bool
		want string
	}{
		{stamped, true, "cairn v0.0.0-20261204135212-b53b039a1c2d+dirty (revision b53b039a1c2d4e5f60718293a4b5c6d7e8f90123, 2026-12-04T13:52:12Z, modified)"},
		{clean, true, "cairn v0.0.0-20261204135212-b53b039a1c2d (revision b53b039a1c2d4e5f60718293a4b5c6d7e8f90123, 2026-12-04T13:52:12Z)"},
		{unstamped, true, "cairn devel"},
		{nil, false, "cairn devel"},
	} {
		if got := cmdbase.VersionText(c.bi, c.ok); got != c.want {
			t.Errorf("versionText = %q, want %q", got, c.want)
		}
	}
	if got := buildTime(stamped, true); got != "2026-12-04T13:52:12Z" {
		t.Errorf("buildTime = %q", got)
	}
}

// TestVersionOfThisBuild: --version prints what versionText makes of this
// binary's own build info (a test binary is never stamped: devel).
func TestVersionOfThisBuild(t *testing.T) {
	var out bytes.Buffer
	if code := Main(t.Context(), []string{"--version"}, nil, &out, io.Discard); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if want := cmdbase.VersionText(debug.ReadBuildInfo()) + "\n"; out.String() != want {
		t.Errorf("--version printed %q, want %q", out.String(), want)
	}
}
