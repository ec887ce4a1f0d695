package scope

import (
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// Kind is what a call's record covers.
type Kind int

const (
	// ReadOnly records nothing: the line only reads.
	ReadOnly Kind = iota
	// Paths records Scope.Paths and nothing else.
	Paths
	// Workspace records the whole workspace.
	Workspace
)

// Scope is what a shell line's record covers.
type Scope struct {
	Kind Kind
	// Paths (Kind Paths only): slash-separated, cleaned, relative to the
	// workspace root, sorted, without duplicates. A folder stands for
	// everything under it. Parse gives the names as written (a name that
	// leads out of the root lexically is left out); Resolve gives the
	// files they reach, links on the way followed.
	Paths []string
	// Names (Kind Paths only) is every name the line writes, absolute as
	// the shell opens it: joined to the folder the line runs in, not
	// cleaned (a link on the way decides where ".." leads). Resolve reads
	// them.
	Names []string
	// Why (Kind Workspace only) says what sent the line to the whole
	// workspace, for messages and tests: "parse", "glob", "expansion",
	// "heredoc", "assignment", "option rm -x", "program make", ….
	Why string
	// Git: the line runs git (a read-only subcommand). git runs the
	// programs its repository's config and hooks name (GitRunsPrograms),
	// which the line does not show.
	Git bool
}

// Env is what Parse needs to know of the workspace.
type Env struct {
	// Root is the workspace's absolute path.
	Root string
	// Dir is the absolute path of the folder the line runs in, which
	// relative names are taken from (an agent's shell may have cd'ed
	// into a subfolder, or out of the workspace); "" is Root.
	Dir string
}

// ReadOnlyCommands are the commands that only read, with any options but
// the ones writeOptions lists for them. git is read-only with one of
// readOnlyGit as its first argument; env only with no program to run.
var ReadOnlyCommands = []string{
	"basename", "cat", "cmp", "comm", "cut", "date", "df", "diff", "dirname",
	"du", "echo", "egrep", "env", "false", "fgrep", "file", "find", "git",
	"grep", "head", "id", "jq", "ls", "md5sum", "nl", "od", "printenv",
	"printf", "pwd", "readlink", "realpath", "rg", "sha1sum", "sha256sum",
	"sha512sum", "sort", "stat", "tail", "test", "tr", "tree", "true", "type",
	"uname", "wc", "which", "whoami", "[",
}

// readOnlyGit are the git subcommands that change no file of the work tree.
var readOnlyGit = []string{
	"blame", "describe", "diff", "grep", "log", "ls-files", "rev-parse",
	"shortlog", "show", "status",
}

// writeOptions are the options that make a read-only command write files
// or run another program; a line using one records the whole workspace.
// An entry ending in "=" matches the option with a value attached too.
var writeOptions = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"find": {"-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls"},
		"git":  {"--output", "--output=", "--ext-diff", "--textconv"},
		"rg":   {"--pre", "--pre=", "--pre-glob", "--pre-glob="},
		"sort": {"-o", "--output", "--output=", "--compress-program", "--compress-program="},
		"tree": {"-o"},
		"file": {"-C", "--compile"},
		"env":  {"-S", "--split-string", "--split-string="},
	}
})

// writeLetters are the short options of writeOptions that may be grouped
// with others ("sort -uo out", "file -bC"): a group holding one writes.
// tree -R writes a 00Tree.html in every folder.
var writeLetters = sync.OnceValue(func() map[string]string {
	return map[string]string{"sort": "o", "tree": "oR", "file": "C", "env": "S"}
})

// writeGit are the options that make a read-only git subcommand run
// another program or write a file, by subcommand.
var writeGit = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"grep": {"-O", "--open-files-in-pager", "--open-files-in-pager="},
	}
})

// Parse says what the record of shell line must cover.
func Parse(line string, env Env) Scope {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
	if err != nil {
		return whole("parse")
	}
	p := &lineParser{env: env}
	for _, s := range f.Stmts {
		p.stmt(s)
		if p.why != "" {
			return whole(p.why)
		}
	}
	if !p.writes {
		return Scope{Kind: ReadOnly, Git: p.git}
	}
	// A name under one that ln, cp or mv writes in the same line may lead
	// through a link the line makes ("ln -s real lk; echo x > lk/y"): what
	// it reaches cannot be told before the line runs.
	for _, n := range p.names {
		if p.underLinker(n) {
			return whole("link")
		}
	}
	slices.Sort(p.paths)
	return Scope{Kind: Paths, Paths: slices.Compact(p.paths), Names: p.names, Git: p.git}
}

func whole(why string) Scope { return Scope{Kind: Workspace, Why: why} }

// lineParser gathers the writes of one line; why, once set, is the answer.
type lineParser struct {
	env    Env
	writes bool
	paths  []string
	names  []string // absolute, as written (Scope.Names)
	git    bool     // Scope.Git
	// linkers is the names written by ln, cp and mv, cleaned: commands
	// that can make a link where a later name leads.
	linkers []string
	why     string
}

// underLinker reports whether name lies strictly under one of linkers.
func (p *lineParser) underLinker(name string) bool {
	n := filepath.Clean(name)
	for _, l := range p.linkers {
		if l == "/" || strings.HasPrefix(n, l+"/") {
			return true
		}
	}
	return false
}

func (p *lineParser) fail(why string) {
	if p.why == "" {
		p.why = why
	}
}

func (p *lineParser) stmt(s *syntax.Stmt) {
	if s.Background || s.Coprocess || s.Disown {
		p.fail("background")
		return
	}
	for _, r := range s.Redirs {
		p.redirect(r)
	}
	switch c := s.Cmd.(type) {
	case nil:
	case *syntax.CallExpr:
		p.call(c)
	case *syntax.BinaryCmd:
		p.stmt(c.X)
		p.stmt(c.Y)
	case *syntax.Block:
		for _, s := range c.Stmts {
			p.stmt(s)
		}
	case *syntax.Subshell:
		for _, s := range c.Stmts {
			p.stmt(s)
		}
	default:
		p.fail("compound command")
	}
}

func (p *lineParser) redirect(r *syntax.Redirect) {
	switch r.Op {
	case syntax.RdrIn:
		if _, ok := literal(r.Word); !ok {
			p.fail("expansion")
		}
	case syntax.DplIn, syntax.DplOut:
		// >&2, <&0, >&-: a file descriptor, not a file. bash's ">& file"
		// (both streams to a file) is a path.
		w, ok := literal(r.Word)
		if !ok {
			p.fail("expansion")
		} else if !fdWord(w) {
			if r.Op == syntax.DplIn {
				p.fail("redirect")
			} else {
				p.write(w)
			}
		}
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll, syntax.RdrInOut:
		w, ok := literal(r.Word)
		if !ok {
			p.fail("expansion")
			return
		}
		p.write(w)
	case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		p.fail("heredoc")
	default:
		p.fail("redirect")
	}
	if r.N != nil && strings.HasPrefix(r.N.Value, "{") {
		p.fail("expansion") // {var}> names a variable
	}
}

// fdWord reports whether w is what >& and <& take as a descriptor.
func fdWord(w string) bool {
	w = strings.TrimSuffix(w, "-")
	if w == "" {
		return true
	}
	for _, c := range w {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func (p *lineParser) call(c *syntax.CallExpr) {
	if len(c.Assigns) > 0 {
		p.fail("assignment")
		return
	}
	args := make([]string, len(c.Args))
	for i, w := range c.Args {
		s, ok := literal(w)
		if !ok {
			p.fail(notLiteral(w))
			return
		}
		args[i] = s
	}
	if len(args) == 0 {
		return
	}
	name := args[0]
	switch name {
	case "rm", "mkdir", "touch", "tee":
		p.operands(name, args[1:])
	case "mv", "cp", "ln":
		p.copyLike(name, args[1:])
	case "sed":
		p.sed(args[1:])
	case "cd", "pushd", "popd":
		p.fail("cd")
	default:
		p.readOnly(name, args[1:])
	}
}

// readOnly accepts a command of the read-only list used without a writing
// option.
func (p *lineParser) readOnly(name string, args []string) {
	if !slices.Contains(ReadOnlyCommands, name) {
		p.fail("program " + name)
		return
	}
	switch name {
	case "git":
		if len(args) == 0 || !slices.Contains(readOnlyGit, args[0]) {
			p.fail("program git")
			return
		}
		p.git = true
		for _, a := range args[1:] {
			for _, o := range writeGit()[args[0]] {
				if a == o || strings.HasPrefix(a, o) && (strings.HasSuffix(o, "=") || !strings.HasPrefix(o, "--")) {
					p.fail("option git " + args[0] + " " + a)
					return
				}
			}
		}
	case "env":
		for _, a := range args {
			if !strings.HasPrefix(a, "-") {
				p.fail("program env") // env runs a program, or sets a variable for one
				return
			}
		}
	}
	for _, a := range args {
		for _, o := range writeOptions()[name] {
			if a == o || strings.HasSuffix(o, "=") && strings.HasPrefix(a, o) {
				p.fail("option " + name + " " + a)
				return
			}
		}
		// sort -o FILE may be joined to other short options ("-uo").
		if l := writeLetters()[name]; l != "" && shortOption(a) && strings.ContainsAny(a[1:], l) {
			p.fail("option " + name + " " + a)
			return
		}
	}
}

// absName is name joined to the folder the line runs in, not cleaned.
func (p *lineParser) absName(name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	base := p.env.Root
	if p.env.Dir != "" {
		base = p.env.Dir
	}
	return strings.TrimSuffix(base, "/") + "/" + name
}

// resolve makes name relative to the workspace root, cleaned; ok is false
// when it is outside (or empty).
func (p *lineParser) resolve(name string) (string, bool) {
	if name == "" {
		return "", false
	}
	root := filepath.Clean(p.env.Root)
	if !filepath.IsAbs(name) {
		base := root
		if p.env.Dir != "" {
			base = filepath.Clean(p.env.Dir)
		}
		name = filepath.Join(base, name)
	}
	rel, err := filepath.Rel(root, filepath.Clean(name))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// literal is the value of w when it is a literal word: no expansion, no
// glob, no brace, no tilde, no escape (kept simple: anything else is the
// whole workspace).
func literal(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", false
	}
	var b strings.Builder
	for i, part := range w.Parts {
		switch x := part.(type) {
		case *syntax.Lit:
			if strings.ContainsAny(x.Value, "*?[]{}\\") || i == 0 && strings.HasPrefix(x.Value, "~") {
				return "", false
			}
			b.WriteString(x.Value)
		case *syntax.SglQuoted:
			if x.Dollar {
				return "", false
			}
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			if x.Dollar {
				return "", false
			}
			for _, q := range x.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok || strings.ContainsRune(l.Value, '\\') {
					return "", false
				}
				b.WriteString(l.Value)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// notLiteral says why w is not a literal word, for Scope.Why.
func notLiteral(w *syntax.Word) string {
	var text strings.Builder
	for _, part := range w.Parts {
		switch x := part.(type) {
		case *syntax.Lit:
			text.WriteString(x.Value)
		case *syntax.SglQuoted, *syntax.DblQuoted:
		default:
			return "expansion"
		}
	}
	switch t := text.String(); {
	case strings.ContainsAny(t, "*?[]"):
		return "glob"
	case strings.ContainsAny(t, "{}"):
		return "brace"
	case strings.HasPrefix(t, "~"):
		return "tilde"
	case strings.ContainsRune(t, '\\'):
		return "escape"
	}
	return "expansion"
}
