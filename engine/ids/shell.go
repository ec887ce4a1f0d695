package ids

import (
	"path"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// ShellPrefix and OutputPrefix start shell job labels and output handles.
const (
	ShellPrefix  = "shell"
	OutputPrefix = "output"
)

// commands maps the executables a shell label may name to the fixed
// subcommands that may follow them (nil: the executable alone). Nothing
// outside this table ever reaches a label, so a label cannot carry a path, a
// secret passed as an argument, or any output. It is built on first use,
// not at init: every program linking the engine (the hook program at each
// tool call) would pay for it, most of them never naming a shell job.
var commands = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		// build tools and package managers
		"cargo":         {"add", "bench", "build", "check", "clean", "clippy", "doc", "fetch", "fmt", "install", "metadata", "new", "publish", "remove", "run", "test", "tree", "update"},
		"go":            {"build", "clean", "doc", "env", "fmt", "generate", "get", "install", "list", "mod", "run", "test", "tool", "version", "vet", "work"},
		"npm":           {"audit", "ci", "exec", "init", "install", "link", "ls", "outdated", "pack", "publish", "run", "start", "test", "uninstall", "update", "version"},
		"pnpm":          {"add", "audit", "build", "dev", "exec", "install", "lint", "outdated", "remove", "run", "start", "test", "update"},
		"yarn":          {"add", "audit", "build", "dev", "install", "lint", "remove", "run", "start", "test", "upgrade"},
		"bun":           {"add", "build", "install", "remove", "run", "test", "update", "x"},
		"deno":          {"bench", "check", "compile", "fmt", "install", "lint", "run", "task", "test"},
		"npx":           nil,
		"node":          nil,
		"python":        nil,
		"python3":       nil,
		"pip":           {"check", "download", "freeze", "install", "list", "show", "uninstall"},
		"pip3":          {"check", "download", "freeze", "install", "list", "show", "uninstall"},
		"uv":            {"add", "build", "lock", "pip", "remove", "run", "sync", "tool", "tree", "venv"},
		"poetry":        {"add", "build", "check", "install", "lock", "remove", "run", "show", "update"},
		"pytest":        nil,
		"tox":           nil,
		"ruff":          {"check", "format"},
		"mypy":          nil,
		"make":          nil,
		"cmake":         nil,
		"ninja":         nil,
		"bazel":         {"build", "clean", "query", "run", "test"},
		"mvn":           {"clean", "compile", "install", "package", "test", "verify"},
		"gradle":        {"assemble", "build", "check", "clean", "run", "test"},
		"gradlew":       {"assemble", "build", "check", "clean", "run", "test"},
		"dotnet":        {"build", "clean", "format", "new", "pack", "publish", "restore", "run", "test"},
		"swift":         {"build", "package", "run", "test"},
		"mix":           {"compile", "deps.get", "format", "test"},
		"bundle":        {"exec", "install", "update"},
		"rake":          nil,
		"rails":         {"console", "db:migrate", "generate", "routes", "server", "test"},
		"composer":      {"install", "require", "update"},
		"gcc":           nil,
		"clang":         nil,
		"rustc":         nil,
		"javac":         nil,
		"tsc":           nil,
		"jest":          nil,
		"vitest":        {"run"},
		"eslint":        nil,
		"prettier":      nil,
		"golangci-lint": {"run"},
		// version control and containers
		"git":     {"add", "apply", "bisect", "blame", "branch", "checkout", "cherry-pick", "clean", "clone", "commit", "diff", "fetch", "grep", "init", "log", "merge", "mv", "pull", "push", "rebase", "reflog", "remote", "reset", "restore", "revert", "rm", "show", "stash", "status", "switch", "tag", "worktree"},
		"gh":      {"api", "issue", "pr", "release", "repo", "run", "workflow"},
		"docker":  {"build", "compose", "exec", "images", "logs", "ps", "pull", "push", "rm", "run", "stop"},
		"kubectl": {"apply", "delete", "describe", "exec", "get", "logs"},
		// reading and searching
		"ls": nil, "cat": nil, "head": nil, "tail": nil, "wc": nil, "grep": nil, "rg": nil,
		"find": nil, "fd": nil, "tree": nil, "diff": nil, "sed": nil, "awk": nil, "jq": nil,
		"sort": nil, "uniq": nil, "echo": nil, "pwd": nil, "which": nil, "du": nil, "df": nil,
		"file": nil, "stat": nil, "sha256sum": nil,
		// changing files
		"mkdir": nil, "rm": nil, "mv": nil, "cp": nil, "touch": nil, "ln": nil, "chmod": nil,
		"tar": nil, "unzip": nil, "curl": nil, "wget": nil,
	}
})

// ShellLabel is the label of a shell job running cmdline, without a
// collision suffix: "shell-<executable>[-<subcommand>]" when cmdline is one
// simple command of a recognized executable, else "shell". Variable
// assignments and redirections around the command are allowed and never
// shown. The label always fits in MaxLen.
func ShellLabel(cmdline string) string {
	name, sub := shellCommand(cmdline)
	if name == "" {
		return ShellPrefix
	}
	return cut(Normalize(ShellPrefix+"-"+name+"-"+sub), MaxLen)
}

// shellCommand returns the recognized executable and fixed subcommand of
// cmdline ("" when it has none), or "" when cmdline is not recognized.
func shellCommand(cmdline string) (name, sub string) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmdline), "")
	if err != nil || len(f.Stmts) != 1 {
		return "", ""
	}
	st := f.Stmts[0]
	if st.Negated || st.Background || st.Coprocess || st.Disown {
		return "", ""
	}
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return "", ""
	}
	exe, ok := literal(call.Args[0])
	if !ok {
		return "", ""
	}
	exe = path.Base(exe)
	subs, known := commands()[exe]
	if !known {
		return "", ""
	}
	if len(call.Args) > 1 {
		if a, ok := literal(call.Args[1]); ok {
			for _, s := range subs {
				if a == s {
					return exe, s
				}
			}
		}
	}
	return exe, ""
}

// literal is the text of a word made of plain literal parts only (no
// expansion, no quotes).
func literal(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, p := range w.Parts {
		l, ok := p.(*syntax.Lit)
		if !ok {
			return "", false
		}
		b.WriteString(l.Value)
	}
	s := b.String()
	return s, s != ""
}

// OutputHandle is the handle of a stored output of producer, without a
// collision suffix: "output-<producer>" ("output-file-grep"). A shell label
// producer keeps its command ("shell-cargo-test" gives "output-cargo-test",
// a bare "shell" gives "output-shell"); no usable producer gives "output".
func OutputHandle(producer string) string {
	p := Normalize(producer)
	if rest, ok := strings.CutPrefix(p, ShellPrefix+"-"); ok {
		p = rest
	}
	if rest, ok := strings.CutPrefix(p, OutputPrefix+"-"); ok {
		p = rest
	} else if p == OutputPrefix {
		p = ""
	}
	if p == "" {
		return OutputPrefix
	}
	return cut(OutputPrefix+"-"+p, MaxLen)
}
