package cli

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// The shell examples of README.md and docs/*.md run here, so the docs
// cannot drift from what cairn does. Every ```sh block of a page runs, in
// the page's order, as one shell script (variables carry from block to
// block, as in a reader's terminal) in a fresh folder with its own state
// folder and HOME, with the real cairn and a jq on the PATH. A command
// followed by lines "# => TEXT" must print exactly those lines (stdout and
// stderr together; "…" stands for any text within a line, and "[exit N]"
// for a command that exits N); a command without them must succeed. A
// block that cannot run here (it starts an interactive REPL, or builds
// cairn from source) is preceded by a line <!-- not run: WHY -->.
// docs/commands.md is generated, and its examples are parsed instead
// (TestEveryCommandHasExample).

// docPages are the pages whose examples run.
func docPages(t *testing.T) []string {
	pages, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	out := []string{"../README.md"}
	for _, p := range pages {
		if filepath.Base(p) != "commands.md" {
			out = append(out, p)
		}
	}
	return out
}

// docScript is a page's examples as a shell script and the outputs its
// commands must print, by the file each is written to.
type docScript struct {
	sh     string
	wants  map[string][]string
	blocks int
}

var notRun = regexp.MustCompile(`^<!-- not run: \S.* -->$`)

func parseDocExamples(page string) (docScript, error) {
	f, err := os.Open(page)
	if err != nil {
		return docScript{}, err
	}
	defer f.Close()
	ds := docScript{wants: map[string][]string{}}
	var sh strings.Builder
	var prev string
	var block []string
	in, skip := false, false
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		switch {
		case !in && line == "```sh":
			in, skip, block = true, notRun.MatchString(prev), nil
		case in && line == "```":
			in = false
			if !skip {
				ds.blocks++
				fmt.Fprintf(&sh, "# %s, block ending at line %d\n", filepath.Base(page), n)
				writeBlock(&sh, block, &ds, n)
			}
		case in:
			block = append(block, line)
		}
		if strings.TrimSpace(line) != "" {
			prev = line
		}
	}
	ds.sh = sh.String()
	return ds, sc.Err()
}

// writeBlock writes one block's commands; those followed by "# =>" lines
// write what they print to a file of their own, checked after the run.
func writeBlock(sh *strings.Builder, lines []string, ds *docScript, end int) {
	var cmds [][]string // each command with its continuation lines
	var wants [][]string
	for _, l := range lines {
		if want, ok := strings.CutPrefix(l, "# =>"); ok && len(cmds) > 0 {
			wants[len(cmds)-1] = append(wants[len(cmds)-1], strings.TrimPrefix(want, " "))
			continue
		}
		if len(cmds) > 0 {
			last := cmds[len(cmds)-1]
			if strings.HasSuffix(last[len(last)-1], `\`) {
				cmds[len(cmds)-1] = append(last, l)
				continue
			}
		}
		cmds = append(cmds, []string{l})
		wants = append(wants, nil)
	}
	for i, c := range cmds {
		text := strings.Join(c, "\n")
		if wants[i] == nil {
			sh.WriteString(text + "\n")
			continue
		}
		name := fmt.Sprintf("out/%d-%d", end, i)
		ds.wants[name] = wants[i]
		fmt.Fprintf(sh, "{ %s\n} >%q 2>&1 || echo \"[exit $?]\" >>%q\n", text, "$WORK/"+name, "$WORK/"+name)
	}
}

func TestDocExamples(t *testing.T) {
	dir := t.TempDir()
	all := map[string]docScript{}
	for _, page := range docPages(t) {
		ds, err := parseDocExamples(page)
		if err != nil {
			t.Fatal(err)
		}
		if ds.blocks == 0 {
			continue
		}
		name := strings.TrimSuffix(filepath.Base(page), ".md")
		all[name] = ds
		var b strings.Builder
		fmt.Fprintf(&b, "# the shell examples of %s\nmkdir out ws\ncd ws\nexec sh -e $WORK/page.sh\n", page)
		for out := range ds.wants {
			fmt.Fprintf(&b, "docout %s %s $WORK/%s\n", name, out, out)
		}
		fmt.Fprintf(&b, "-- page.sh --\n%s", ds.sh)
		if err := os.WriteFile(filepath.Join(dir, name+".txtar"), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if len(all) == 0 {
		t.Fatal("no page has shell examples")
	}
	testscript.Run(t, testscript.Params{
		Dir: dir,
		Setup: func(e *testscript.Env) error {
			e.Setenv("CAIRN_HOME", e.WorkDir+"/.cairn-home")
			e.Setenv("HOME", e.WorkDir+"/home")
			e.Setenv(heardEnv, os.Getenv(heardEnv))
			return os.MkdirAll(e.WorkDir+"/home", 0o755)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// docout PAGE NAME FILE: what the command printed to FILE is
			// what the page shows under it.
			"docout": func(ts *testscript.TestScript, neg bool, args []string) {
				want := all[args[0]].wants[args[1]]
				got := strings.Split(strings.TrimSuffix(ts.ReadFile(args[2]), "\n"), "\n")
				if !linesMatch(got, want) {
					ts.Fatalf("%s shows (%s)\n%s\nbut the command printed\n%s", args[0], args[1], strings.Join(want, "\n"), strings.Join(got, "\n"))
				}
			},
		},
	})
}

// linesMatch reports whether got are the lines want shows, "…" in a
// wanted line standing for any text.
func linesMatch(got, want []string) bool {
	if len(got) != len(want) {
		return false
	}
	for i, w := range want {
		parts := strings.Split(w, "…")
		for j, p := range parts {
			parts[j] = regexp.QuoteMeta(p)
		}
		if !regexp.MustCompile("^" + strings.Join(parts, ".*") + "$").MatchString(got[i]) {
			return false
		}
	}
	return true
}

// TestDocExamplesParse: the parser of the examples finds commands, their
// wanted lines and the blocks marked not run.
func TestDocExamplesParse(t *testing.T) {
	page := filepath.Join(t.TempDir(), "p.md")
	os.WriteFile(page, []byte("text\n```sh\nS=$(cairn prompt --new --json x | jq -r .session)\ncairn show \"$S\" \\\n  --json | jq -r .title\n# => x\n```\n\n<!-- not run: starts a REPL -->\n```sh\ncairn\n```\n"), 0o644)
	ds, err := parseDocExamples(page)
	if err != nil {
		t.Fatal(err)
	}
	if ds.blocks != 1 || len(ds.wants) != 1 {
		t.Fatalf("blocks %d, wants %v", ds.blocks, ds.wants)
	}
	for name, want := range ds.wants {
		if strings.Join(want, "\n") != "x" || !strings.Contains(ds.sh, "{ cairn show \"$S\" \\\n  --json | jq -r .title\n} >\"$WORK/"+name+"\"") {
			t.Errorf("script:\n%s\nwants %q", ds.sh, want)
		}
	}
	if strings.Contains(ds.sh, "\ncairn\n") {
		t.Errorf("a block marked not run runs:\n%s", ds.sh)
	}
	if !linesMatch([]string{"Changed a.txt (snapshot mx1-2)."}, []string{"Changed a.txt (snapshot …)."}) || linesMatch([]string{"a", "b"}, []string{"a"}) || linesMatch([]string{"Changed b.txt"}, []string{"Changed a…"}) {
		t.Error("linesMatch")
	}
}

// TestDocGoExcerpts: each ```go block of the README and docs/ is an
// excerpt of engine/example_test.go, whose examples go test runs with
// their output checked, so the Go the docs show compiles and works.
func TestDocGoExcerpts(t *testing.T) {
	src, err := os.ReadFile("../engine/example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, page := range docPages(t) {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, block := range fencedBlocks(string(text), "go") {
			found++
			if !strings.Contains(string(src), block) {
				t.Errorf("%s shows Go that engine/example_test.go does not hold:\n%s", page, block)
			}
		}
	}
	if found == 0 {
		t.Error("no page shows the engine's Go")
	}
}

// fencedBlocks are the bodies of the fenced blocks of text whose info
// string is lang.
func fencedBlocks(text, lang string) []string {
	var out []string
	var cur []string
	in := false
	for _, line := range strings.Split(text, "\n") {
		switch {
		case !in && line == "```"+lang:
			in, cur = true, nil
		case in && line == "```":
			in = false
			out = append(out, strings.Join(cur, "\n")+"\n")
		case in:
			cur = append(cur, line)
		}
	}
	return out
}

// TestDocsNameRealTests: every test, fuzz target or benchmark a page names
// (`TestX`, `FuzzX`, `BenchmarkX` in backquotes) is a function of cairn's
// sources, so a renamed test cannot leave a promise pointing at nothing.
func TestDocsNameRealTests(t *testing.T) {
	defined := map[string]bool{}
	decl := regexp.MustCompile(`(?m)^func ((?:Test|Fuzz|Benchmark)\w+)\(`)
	err := filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		b, err := os.ReadFile(path)
		for _, m := range decl.FindAllSubmatch(b, -1) {
			defined[string(m[1])] = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	named := regexp.MustCompile("`((?:Test|Fuzz|Benchmark)[A-Z]\\w*)`")
	count := 0
	for _, page := range docPages(t) {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range named.FindAllStringSubmatch(string(b), -1) {
			count++
			if !defined[m[1]] {
				t.Errorf("%s names %s, which no test file defines", page, m[1])
			}
		}
	}
	if count == 0 {
		t.Error("no page names a test")
	}
}

// TestDocsCiteFilesThatExist: a path of the repository a page cites
// (engine/doc.go, testdata/script/whole_session.sh, a link to another
// page) is there, so a file moved by a reshape cannot leave a page
// pointing at nothing.
func TestDocsCiteFilesThatExist(t *testing.T) {
	cited := regexp.MustCompile(`(?:\.\./)?[A-Za-z0-9_-]+(?:/[A-Za-z0-9_.-]+)*\.(?:go|md|sh|txtar|1)\b`)
	top, err := os.ReadDir("..")
	if err != nil {
		t.Fatal(err)
	}
	dirs := map[string]bool{}
	for _, e := range top {
		dirs[e.Name()] = e.IsDir()
	}
	count := 0
	for _, page := range docPages(t) {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range cited.FindAllString(string(b), -1) {
			name = strings.TrimPrefix(name, "../")
			first, _, nested := strings.Cut(name, "/")
			switch {
			case nested && dirs[first]:
				// A path from the top of the repository.
				count++
				if _, err := os.Stat("../" + name); err != nil {
					t.Errorf("%s cites %s, which the repository does not hold", page, name)
				}
			case !nested && filepath.Dir(page) == "../docs" && strings.Contains(string(b), "]("+name):
				// A link to another page of docs/.
				count++
				if _, err := os.Stat("../docs/" + name); err != nil {
					t.Errorf("%s links %s, which docs/ does not hold", page, name)
				}
			}
		}
	}
	if count == 0 {
		t.Error("no page cites a file")
	}
}
