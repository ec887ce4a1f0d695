package scope

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// git's read-only subcommands run programs the repository names, not the
// line: core.fsmonitor at git status and diff, diff drivers and textconv
// filters at diff, log, show, blame and grep, clean and smudge filters
// when it compares the work tree, gpg at log --show-signature, and the
// post-index-change hook when status refreshes the index. Any of them can
// change the workspace's files, so a line running git in a repository that
// names one is not read-only (nor only its literal paths).

// programKeys are the config keys whose value git runs, by section and
// key, lower case ("*" any subsection); core.fsmonitor only when it is not
// a boolean (true is git's own daemon). This table and the others of the
// package are built on first use, not at init: every program linking the
// engine would pay for them, the hook program at each tool call.
var programKeys = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"core":      {"fsmonitor", "hookspath"},
		"diff":      {"external", "command", "textconv"},
		"filter":    {"clean", "smudge", "process"},
		"gpg":       {"program"},
		"include":   {"path"},
		"includeif": {"path"},
	}
})

// gitBool reports whether v is one of git's boolean words.
func gitBool(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "true", "false", "yes", "no", "on", "off", "1", "0":
		return true
	}
	return false
}

// GitRunsPrograms says what program the git repository that root is in
// (or is) names for git to run in its read-only commands: a config key
// ("core.fsmonitor", "diff.pdf.textconv", "include.path": an included file
// is not read) or a hook ("hooks/post-index-change"); "" when none, or
// when root is in no repository. The repository's own config files are
// read (config, config.worktree, and the common folder's of a worktree),
// not the user's or the system's.
func GitRunsPrograms(root string) string {
	dir := gitDir(root)
	if dir == "" {
		return ""
	}
	dirs := []string{dir}
	if b, err := os.ReadFile(filepath.Join(dir, "commondir")); err == nil {
		c := strings.TrimSpace(string(b))
		if !filepath.IsAbs(c) {
			c = filepath.Join(dir, c)
		}
		dirs = append(dirs, c)
	}
	for _, d := range dirs {
		for _, name := range []string{"config", "config.worktree"} {
			if key := configRuns(filepath.Join(d, name)); key != "" {
				return key
			}
		}
		if fi, err := os.Stat(filepath.Join(d, "hooks", "post-index-change")); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return "hooks/post-index-change"
		}
	}
	return ""
}

// gitDir is the git folder of the repository folder dir is in: the
// nearest ".git" folder above it, or the folder a ".git" file names.
func gitDir(dir string) string {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		p := filepath.Join(d, ".git")
		fi, err := os.Stat(p)
		switch {
		case err == nil && fi.IsDir():
			return p
		case err == nil && fi.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return ""
			}
			g, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
			if !ok {
				return ""
			}
			g = strings.TrimSpace(g)
			if !filepath.IsAbs(g) {
				g = filepath.Join(d, g)
			}
			return g
		}
		if d == filepath.Dir(d) {
			return ""
		}
	}
}

// configRuns is the first key of config file name that names a program
// git runs, "section.key" or "section.sub.key"; "" when none (or no file).
func configRuns(name string) string {
	b, err := os.ReadFile(name)
	if err != nil {
		return ""
	}
	var section, sub string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			// [section], [section "sub"] or the old [section.sub]; a
			// key may follow on the same line.
			end := strings.IndexByte(line, ']')
			if end < 0 {
				continue
			}
			head := line[1:end]
			line = strings.TrimSpace(line[end+1:])
			section, sub, _ = strings.Cut(head, " ")
			if s, rest, ok := strings.Cut(section, "."); ok {
				section, sub = s, rest
			}
			section = strings.ToLower(strings.TrimSpace(section))
			sub = strings.Trim(strings.TrimSpace(sub), `"`)
		}
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		key, val, _ := strings.Cut(line, "=")
		key = strings.ToLower(strings.TrimSpace(key))
		for _, k := range programKeys()[section] {
			if key != k || section == "core" && key == "fsmonitor" && gitBool(val) {
				continue
			}
			if sub != "" {
				return section + "." + sub + "." + key
			}
			return section + "." + key
		}
	}
	return ""
}
