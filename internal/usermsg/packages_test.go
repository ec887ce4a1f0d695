package usermsg

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

// Every package of cairn that puts its name before its messages is named in
// packages, so that a message it makes never reaches the user with a
// package's name in it (a package moved below the engine keeps the rule).
func TestPackagesNameEveryPrefixingPackage(t *testing.T) {
	known := map[string]bool{}
	for _, p := range strings.Split(packages, "|") {
		known[p] = true
	}
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != root && (strings.HasPrefix(n, ".") || n == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.PackageClauseOnly)
		if err != nil {
			return err
		}
		name := f.Name.Name
		if name == "main" || known[name] {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if regexp.MustCompile(`(Errorf|errors\.New)\("` + regexp.QuoteMeta(name) + `: `).Match(b) {
			t.Errorf("%s: package %s prefixes its errors with its name, and packages does not name it", p, name)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
