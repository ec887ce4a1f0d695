package doccheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// mapHeading starts the map of the engine's code in engine/doc_map.go;
// the map runs to the end of the file.
const mapHeading = "// # Where things are"

// mapPackages are the folders, from the module root, whose declarations
// the map may name: the engine, every package below it, and the bottom
// layer it calls.
var mapPackages = []string{"engine", "engine/internal/*", "engine/retention", "engine/wskey", "engine/ids",
	"journal", "objects", "index", "internal/vfs"}

// mapForeign are the standard library's packages the map may name; their
// names are not checked.
var mapForeign = map[string]bool{"os": true}

// dotted is a name written with dots: pkg.Name, Type.member, pkg.Type.member.
var dotted = regexp.MustCompile(`\b[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+\b`)

// fileExt are the endings of a file name the map cites, which are not Go names.
var fileExt = map[string]bool{"go": true, "md": true, "json": true, "jsonl": true, "lock": true, "zst": true, "tree": true, "read": true}

// decls are one package's names: its top-level names, and each type's
// methods and fields.
type decls struct {
	top     map[string]bool
	members map[string]map[string]bool
}

// The map in engine/doc_map.go names only what the code holds: every dotted
// name (a package's function or type, a type's method or field) exists;
// every non-test file of the engine root is named in it; and its table of
// the packages below the root has a row for each of them and no other.
func TestDocMapNamesExist(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "engine", "doc_map.go"))
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(b), mapHeading)
	if i < 0 {
		t.Fatalf("engine/doc_map.go has no %q section", mapHeading)
	}
	var text strings.Builder
	for _, line := range strings.Split(string(b[i:]), "\n") {
		if c, ok := strings.CutPrefix(line, "//"); ok {
			text.WriteString(c + "\n")
		}
	}
	doc := text.String()

	pkgs, types := map[string]*decls{}, map[string][]*decls{}
	var internal []string
	fset := token.NewFileSet()
	for _, pat := range mapPackages {
		dirs, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(pat)))
		if err != nil || len(dirs) == 0 {
			t.Fatalf("no package folder matches %s: %v", pat, err)
		}
		for _, dir := range dirs {
			if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
				continue
			}
			if strings.HasSuffix(pat, "/*") {
				internal = append(internal, filepath.Base(dir))
			}
			d := readDecls(t, fset, dir)
			pkgs[filepath.Base(dir)] = d
			for typ := range d.members {
				types[typ] = append(types[typ], d)
			}
		}
	}

	names := 0
	for _, name := range dotted.FindAllString(doc, -1) {
		segs := strings.Split(name, ".")
		if fileExt[segs[len(segs)-1]] || mapForeign[segs[0]] {
			continue
		}
		names++
		if d := pkgs[segs[0]]; d != nil {
			switch {
			case !d.top[segs[1]]:
				t.Errorf("the map names %s: package %s has no %s", name, segs[0], segs[1])
			case len(segs) > 2 && !d.members[segs[1]][segs[2]]:
				t.Errorf("the map names %s: %s.%s has no method or field %s", name, segs[0], segs[1], segs[2])
			}
			continue
		}
		ds := types[segs[0]]
		if len(ds) == 0 {
			t.Errorf("the map names %s: no package or type is called %s", name, segs[0])
			continue
		}
		found := false
		for _, d := range ds {
			found = found || d.members[segs[0]][segs[1]]
		}
		if !found {
			t.Errorf("the map names %s: type %s has no method or field %s", name, segs[0], segs[1])
		}
	}
	if names < 40 {
		t.Errorf("the map names only %d functions, types and fields; the steps name more", names)
	}

	// Every file of the root is in a group.
	files, err := filepath.Glob(filepath.Join(root, "engine", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	words := map[string]bool{}
	for _, w := range strings.Fields(doc) {
		words[strings.TrimRight(w, ".,;:)")] = true
	}
	for _, f := range files {
		if base := filepath.Base(f); !strings.HasSuffix(base, "_test.go") && !words[base] {
			t.Errorf("the map's groups do not name engine/%s", base)
		}
	}

	// The table of packages below the root: a row each, no other.
	row := regexp.MustCompile(`(?m)^\t([a-z]+) +\S`)
	var rows []string
	for _, m := range row.FindAllStringSubmatch(doc, -1) {
		rows = append(rows, m[1])
	}
	sort.Strings(rows)
	sort.Strings(internal)
	if strings.Join(rows, " ") != strings.Join(internal, " ") {
		t.Errorf("the map's table of packages below the root has rows\n\t%v\nbut engine/internal holds\n\t%v", rows, internal)
	}
}

// readDecls reads the top-level names of the package in dir (its non-test
// files), and each type's methods and fields.
func readDecls(t *testing.T, fset *token.FileSet, dir string) *decls {
	t.Helper()
	d := &decls{top: map[string]bool{}, members: map[string]map[string]bool{}}
	member := func(typ, name string) {
		if d.members[typ] == nil {
			d.members[typ] = map[string]bool{}
		}
		d.members[typ][name] = true
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range files {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			switch x := decl.(type) {
			case *ast.FuncDecl:
				if x.Recv == nil {
					d.top[x.Name.Name] = true
					continue
				}
				member(recvType(x.Recv.List[0].Type), x.Name.Name)
			case *ast.GenDecl:
				for _, spec := range x.Specs {
					switch s := spec.(type) {
					case *ast.ValueSpec:
						for _, n := range s.Names {
							d.top[n.Name] = true
						}
					case *ast.TypeSpec:
						d.top[s.Name.Name] = true
						member(s.Name.Name, "") // the type exists, with or without members
						st, ok := s.Type.(*ast.StructType)
						if !ok {
							continue
						}
						for _, fl := range st.Fields.List {
							for _, n := range fl.Names {
								member(s.Name.Name, n.Name)
							}
							if len(fl.Names) == 0 { // embedded: named by its type
								member(s.Name.Name, recvType(fl.Type))
							}
						}
					}
				}
			}
		}
	}
	return d
}

// recvType is the name of the type a receiver or an embedded field is of.
func recvType(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.SelectorExpr:
			return x.Sel.Name
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}
