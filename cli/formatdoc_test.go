package cli

import (
	"bufio"
	"fmt"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The line kinds of cairn's files are drawn in the Go comments beside the
// code that writes them. docs/format.md carries a copy of every drawing,
// between the markers below, made from the sources: TestReference fails
// when the copy is stale, and -update makes it again.
const (
	formatBegin = "<!-- begin: drawn in the sources; go test ./cli -run TestReference -update makes it -->\n"
	formatEnd   = "<!-- end: drawn in the sources -->\n"
)

// formatDrawings is the generated part of docs/format.md: each source
// file's preformatted comment blocks that draw a line or file ({"v":N,...}),
// by file, in path order.
func formatDrawings(root string) (string, error) {
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	sort.Strings(files)
	var b strings.Builder
	for _, path := range files {
		blocks, err := drawings(path)
		if err != nil {
			return "", err
		}
		if len(blocks) == 0 {
			continue
		}
		rel, _ := filepath.Rel(root, path)
		fmt.Fprintf(&b, "`%s`:\n\n```text\n%s```\n\n", filepath.ToSlash(rel), strings.Join(blocks, "\n"))
	}
	return b.String(), nil
}

// drawings are the preformatted comment blocks of a Go file ("//\t" lines)
// that draw a JSON line or file with its format version ({"v":N,...}).
func drawings(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	var cur []string
	kinded := false
	flush := func() {
		if kinded {
			out = append(out, strings.Join(cur, "\n")+"\n")
		}
		cur, kinded = nil, false
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "//\t")
		if !ok {
			flush()
			continue
		}
		cur = append(cur, line)
		if strings.HasPrefix(strings.TrimSpace(line), `{"v":`) {
			kinded = true
		}
	}
	flush()
	return out, sc.Err()
}

// withFormatDrawings is page with its generated part replaced by drawn.
func withFormatDrawings(page, drawn string) (string, error) {
	i, j := strings.Index(page, formatBegin), strings.Index(page, formatEnd)
	if i < 0 || j < i {
		return "", fmt.Errorf("docs/format.md lacks the markers of its generated part")
	}
	return page[:i+len(formatBegin)] + "\n" + drawn + page[j:], nil
}

// TestFormatDrawings: the copy holds the journals' line kinds, each with
// its version.
func TestFormatDrawings(t *testing.T) {
	drawn, err := formatDrawings("..")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`{"v":1,"kind":"session"`, `{"v":1,"kind":"change"`, `{"v":1,"kind":"record"`, `{"v":1,"kind":"usage"`, "`engine/internal/convlog/doc.go`:"} {
		if !strings.Contains(drawn, want) {
			t.Errorf("the drawings lack %s", want)
		}
	}
}

// The package table of docs/embedding.md is made from each package's doc
// comment (its first sentence), so a package that moves or is added shows
// there at the next -update and a stale table fails TestReference.
const (
	packagesBegin = "<!-- begin: each package's doc comment; go test ./cli -run TestReference -update makes it -->\n"
	packagesEnd   = "<!-- end: each package's doc comment -->\n"
)

// packagesTable is a markdown table of the packages under root: import
// path and the synopsis of the package's doc comment.
func packagesTable(root string) (string, error) {
	var rows []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if path != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		pkgs, err := parser.ParseDir(token.NewFileSet(), path, func(fi fs.FileInfo) bool {
			return !strings.HasSuffix(fi.Name(), "_test.go")
		}, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			return err
		}
		for _, p := range pkgs {
			text := ""
			for _, f := range p.Files {
				if f.Doc != nil {
					text = f.Doc.Text()
					break
				}
			}
			rel, _ := filepath.Rel(root, path)
			var pd doc.Package
			// A tab after the path sorts a package before those under it.
			rows = append(rows, fmt.Sprintf("%s\t| `%s` | %s |", filepath.ToSlash(rel), filepath.ToSlash(rel), cell(pd.Synopsis(text))))
		}
		return nil
	})
	sort.Strings(rows)
	for i, r := range rows {
		_, rows[i], _ = strings.Cut(r, "\t")
	}
	return "| package | what it does |\n|---|---|\n" + strings.Join(rows, "\n") + "\n", err
}

// between is page with the text between the markers begin and end
// replaced by text.
func between(page, begin, end, text string) (string, error) {
	i, j := strings.Index(page, begin), strings.Index(page, end)
	if i < 0 || j < i {
		return "", fmt.Errorf("the page lacks the markers %q", strings.TrimSpace(begin))
	}
	return page[:i+len(begin)] + "\n" + text + "\n" + page[j:], nil
}
