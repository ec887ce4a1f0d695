package doccheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// sentinel is the name of an error value a caller compares against.
var sentinel = regexp.MustCompile(`^(Err[A-Z]\w*|EOF)$`)

// errorName is a variable that holds an error, as the code names them.
var errorName = regexp.MustCompile(`^(err|\w*Err)$`)

// errTextAllowed are the places that read an error's text, each with its
// reason: os.Root does not export the error it gives a name that escapes
// (vfs.IsEscape, which TestIsEscape keeps honest); and the printer that
// turns an error's text into a person's words (usermsg, which TestLeak and
// the CLI's check over every printed message keep honest).
var errTextAllowed = map[string]bool{
	"internal/vfs/vfs.go":         true,
	"internal/usermsg/usermsg.go": true,
}

// Errors are told apart with errors.Is and errors.As only, against the
// sentinels each package declares in one block: no == or !=
// against an error value, no type assertion on an error (a type switch
// that walks a tree of joined errors looks at each one itself), and no
// message taken apart with package strings (a refusal's reason is
// engine.Refusal's Why). An Is method is where a comparison belongs.
func TestErrorsComparedWithIsAndAs(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	sentinels := map[string]map[string][]string{} // package folder -> file -> sentinels
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") && p != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, spec := range g.Specs {
				for _, name := range spec.(*ast.ValueSpec).Names {
					if sentinel.MatchString(name.Name) {
						pkg := path.Dir(rel)
						if sentinels[pkg] == nil {
							sentinels[pkg] = map[string][]string{}
						}
						sentinels[pkg][path.Base(rel)] = append(sentinels[pkg][path.Base(rel)], name.Name)
					}
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.FuncDecl:
				// An Is method says which target an error is: it compares.
				return x.Name.Name != "Is"
			case *ast.BinaryExpr:
				if x.Op != token.EQL && x.Op != token.NEQ {
					break
				}
				for _, side := range []ast.Expr{x.X, x.Y} {
					if name := lastName(side); sentinel.MatchString(name) {
						t.Errorf("%s: compared with %s: use errors.Is", fset.Position(x.Pos()), x.Op)
					}
				}
				if !errTextAllowed[rel] && (callsError(x.X) || callsError(x.Y)) {
					t.Errorf("%s: an error's text compared: use errors.Is or errors.As", fset.Position(x.Pos()))
				}
			case *ast.TypeAssertExpr:
				if x.Type != nil && errorName.MatchString(lastName(x.X)) {
					t.Errorf("%s: a type assertion on an error: use errors.As", fset.Position(x.Pos()))
				}
			case *ast.CallExpr:
				if sel, ok := x.Fun.(*ast.SelectorExpr); ok && lastName(sel.X) == "strings" && !errTextAllowed[rel] {
					for _, a := range x.Args {
						if callsError(a) {
							t.Errorf("%s: an error's text taken apart with strings.%s", fset.Position(x.Pos()), sel.Sel.Name)
						}
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for pkg, files := range sentinels {
		if len(files) > 1 {
			t.Errorf("%s declares its sentinel errors in %d files, not in one block: %v", pkg, len(files), files)
		}
	}
}

// lastName is the name an expression ends with: x for x, Sel for a.Sel.
func lastName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.SelectorExpr:
		return x.Sel.Name
	}
	return ""
}

// callsError reports whether e holds a call of an Error method.
func callsError(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok && len(c.Args) == 0 {
			if sel, ok := c.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Error" {
				found = true
			}
		}
		return !found
	})
	return found
}
