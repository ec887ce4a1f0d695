package doccheck

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// fileName is a file name a comment may cite: a base name or a path
// ending in .go or .md.
var fileName = regexp.MustCompile(`[A-Za-z0-9_./-]*[A-Za-z0-9_]\.(?:go|md)\b`)

// Every .go or .md file a Go comment names exists in the repository, by
// its path from the module root or, for a bare name, somewhere in it.
func TestCommentsCiteFilesThatExist(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found at %s: %v", root, err)
	}
	paths, bases := map[string]bool{}, map[string]bool{}
	var goFiles []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") && p != root {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		paths[filepath.ToSlash(rel)] = true
		bases[d.Name()] = true
		if strings.HasSuffix(p, ".go") {
			goFiles = append(goFiles, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(goFiles) < 50 {
		t.Fatalf("found only %d Go files under %s", len(goFiles), root)
	}
	fset := token.NewFileSet()
	for _, p := range goFiles {
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range f.Comments {
			for _, c := range g.List {
				for _, name := range fileName.FindAllString(c.Text, -1) {
					name = strings.TrimPrefix(name, "./")
					if paths[name] || (!strings.Contains(name, "/") && bases[name]) {
						continue
					}
					// A path from the comment's own package folder.
					rel, _ := filepath.Rel(root, filepath.Join(filepath.Dir(p), name))
					if paths[filepath.ToSlash(rel)] {
						continue
					}
					t.Errorf("%s: a comment cites %s, which the repository does not hold", fset.Position(c.Pos()), name)
				}
			}
		}
	}
}
