package scope

import (
	"bytes"
	"strings"
)

// A .gitignore matcher with git's rules (gitignore(5), dir.c and
// wildmatch.c of git): blank lines and "#" lines are skipped, "\#" and "\!"
// escape, unescaped trailing spaces go, "!" negates, a trailing "/" matches
// folders only, a pattern without any other "/" matches the base name at
// any depth, one with a "/" matches the path relative to the folder of its
// .gitignore (a leading "/" only anchors), and "**" spans folders when it
// is a whole path component. The last matching line wins, a deeper
// .gitignore before a higher one; an ignored folder is not entered, so a
// negation never brings back what is inside it.
//
// go-git's plumbing/format/gitignore (v5.19.3) was the first choice, but
// it differs from git where a walk needs it to agree: "foo/**" matches foo
// itself, a pattern with a slash matches any path it is a prefix of (so
// "!a/b" brings back a/b/c.o past "*.o"), and "[!x]" and "[[:digit:]]"
// are not understood (it matches with path/filepath.Match).
// TestIgnoreMatchesGit compares this one with git check-ignore.

// ignorePattern is one line of a .gitignore.
type ignorePattern struct {
	pattern string
	negate  bool
	dirOnly bool
	// baseOnly: the pattern has no slash (but a trailing one) and matches
	// the base name.
	baseOnly bool
	// literal: the pattern has no wildcard or escape, so it matches only
	// itself; suffix: a base-name pattern "*" and then such a text (as
	// "*.log") matches the names ending in it. Both are git's own short
	// cuts (dir.c's nowildcardlen and PATTERN_FLAG_ENDSWITH): a walk
	// matches every name against them.
	literal bool
	suffix  string
}

// ignoreFile is the patterns of one folder's .gitignore; dir is that
// folder relative to the root ("" for the root).
type ignoreFile struct {
	dir      string
	patterns []ignorePattern
}

// parseIgnore reads the content of a .gitignore of folder dir.
func parseIgnore(dir string, data []byte) *ignoreFile {
	f := &ignoreFile{dir: dir}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	for _, line := range strings.Split(string(data), "\n") {
		line = trimTrailingSpaces(line)
		if line == "" || line[0] == '#' {
			continue
		}
		var p ignorePattern
		if line[0] == '!' {
			p.negate = true
			line = line[1:]
		}
		if strings.HasSuffix(line, "/") {
			p.dirOnly = true
			line = line[:len(line)-1]
		}
		if line == "" {
			continue
		}
		p.baseOnly = !strings.Contains(line, "/")
		p.pattern = strings.TrimPrefix(line, "/")
		const wild = "*?[\\"
		p.literal = !strings.ContainsAny(p.pattern, wild)
		if rest, ok := strings.CutPrefix(p.pattern, "*"); ok && p.baseOnly && !strings.ContainsAny(rest, wild) {
			p.suffix = rest
		}
		f.patterns = append(f.patterns, p)
	}
	return f
}

// trimTrailingSpaces drops the spaces at the end of line that no
// backslash escapes, as git's trim_trailing_spaces.
func trimTrailingSpaces(line string) string {
	end := len(line)
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case ' ':
			if end == len(line) {
				end = i
			}
		case '\\':
			i++
			if i >= len(line) {
				return line
			}
			end = len(line)
		default:
			end = len(line)
		}
	}
	return line[:end]
}

// match says whether path rel (relative to the root, slash-separated)
// matches f: +1 ignored, -1 negated (not ignored), 0 no line matches.
func (f *ignoreFile) match(rel string, isDir bool) int {
	sub := rel
	if f.dir != "" {
		if len(rel) <= len(f.dir) || rel[len(f.dir)] != '/' || !strings.HasPrefix(rel, f.dir) {
			return 0
		}
		sub = rel[len(f.dir)+1:]
	}
	base := sub[strings.LastIndexByte(sub, '/')+1:]
	for i := len(f.patterns) - 1; i >= 0; i-- {
		p := &f.patterns[i]
		if p.dirOnly && !isDir {
			continue
		}
		text := sub
		if p.baseOnly {
			text = base
		}
		var ok bool
		switch {
		case p.literal:
			ok = text == p.pattern
		case p.suffix != "":
			ok = strings.HasSuffix(text, p.suffix)
		default:
			ok = wildmatch(p.pattern, text)
		}
		if ok {
			if p.negate {
				return -1
			}
			return 1
		}
	}
	return 0
}

// ignored says whether rel is ignored by the stack of .gitignore files of
// its folders, the root's first.
func ignored(stack []*ignoreFile, rel string, isDir bool) bool {
	for i := len(stack) - 1; i >= 0; i-- {
		if stack[i] == nil {
			continue
		}
		if m := stack[i].match(rel, isDir); m != 0 {
			return m > 0
		}
	}
	return false
}

// wildmatch matches text against pattern as git's wildmatch with
// WM_PATHNAME: "*", "?" and brackets never match "/", "**" as a whole
// component matches any number of folders.
func wildmatch(pattern, text string) bool { return dowild(pattern, text) == wmMatch }

// The results of dowild, as git's: besides a match and no match, the two
// aborts cut the backtracking of the stars around (so no pattern takes
// more than polynomial time on a path): abortAll, no later start can
// match either; abortToStarStar, only a "**" further out can still help.
const (
	wmMatch = iota
	wmNoMatch
	wmAbortAll
	wmAbortToStarStar
)

func dowild(pattern, text string) int {
	p, t := 0, 0
	for p < len(pattern) {
		c := pattern[p]
		switch c {
		case '?':
			if t >= len(text) {
				return wmAbortAll
			}
			if text[t] == '/' {
				return wmNoMatch
			}
			p++
			t++
		case '\\':
			p++
			if p >= len(pattern) {
				return wmNoMatch // a trailing backslash matches nothing
			}
			if t >= len(text) {
				return wmAbortAll
			}
			if text[t] != pattern[p] {
				return wmNoMatch
			}
			p++
			t++
		case '[':
			if t >= len(text) {
				return wmAbortAll
			}
			n, ok := matchBracket(pattern[p:], text[t])
			if n == 0 {
				return wmAbortAll // an unclosed bracket matches nothing
			}
			if !ok || text[t] == '/' {
				return wmNoMatch
			}
			p += n
			t++
		case '*':
			start := p
			for p < len(pattern) && pattern[p] == '*' {
				p++
			}
			matchSlash := false
			if p-start >= 2 && (start == 0 || pattern[start-1] == '/') && (p == len(pattern) || pattern[p] == '/') {
				if p < len(pattern) && dowild(pattern[p+1:], text[t:]) == wmMatch {
					return wmMatch // "**/" matching no folder
				}
				matchSlash = true
			}
			if p == len(pattern) {
				if !matchSlash && strings.Contains(text[t:], "/") {
					return wmAbortToStarStar
				}
				return wmMatch
			}
			rest := pattern[p:]
			for i := t; i < len(text); i++ {
				r := dowild(rest, text[i:])
				if r != wmNoMatch {
					if !matchSlash || r != wmAbortToStarStar {
						return r
					}
				} else if !matchSlash && text[i] == '/' {
					return wmAbortToStarStar
				}
			}
			return wmAbortAll
		default:
			if t >= len(text) {
				return wmAbortAll
			}
			if text[t] != c {
				return wmNoMatch
			}
			p++
			t++
		}
	}
	if t < len(text) {
		return wmNoMatch
	}
	return wmMatch
}

// matchBracket matches character c against the bracket expression at the
// start of pat ("[...]"): n is its length (0 when it is not closed).
func matchBracket(pat string, c byte) (n int, ok bool) {
	i := 1
	negate := false
	if i < len(pat) && (pat[i] == '!' || pat[i] == '^') {
		negate = true
		i++
	}
	matched := false
	first := true
	for i < len(pat) {
		ch := pat[i]
		if ch == ']' && !first {
			return i + 1, matched != negate
		}
		first = false
		if ch == '[' && i+1 < len(pat) && pat[i+1] == ':' {
			end := strings.Index(pat[i+2:], ":]")
			if end < 0 {
				return 0, false
			}
			class := pat[i+2 : i+2+end]
			if !knownClass(class) {
				return 0, false
			}
			if inClass(class, c) {
				matched = true
			}
			i += 2 + end + 2
			continue
		}
		if ch == '\\' {
			i++
			if i >= len(pat) {
				return 0, false
			}
			ch = pat[i]
		}
		lo := ch
		i++
		if i+1 < len(pat) && pat[i] == '-' && pat[i+1] != ']' {
			hi := pat[i+1]
			i += 2
			if hi == '\\' {
				if i >= len(pat) {
					return 0, false
				}
				hi = pat[i]
				i++
			}
			if lo <= c && c <= hi {
				matched = true
			}
			continue
		}
		if c == lo {
			matched = true
		}
	}
	return 0, false
}

func knownClass(class string) bool {
	switch class {
	case "alnum", "alpha", "blank", "cntrl", "digit", "graph", "lower", "print", "punct", "space", "upper", "xdigit":
		return true
	}
	return false
}

func inClass(class string, c byte) bool {
	switch class {
	case "alnum":
		return isAlpha(c) || isDigit(c)
	case "alpha":
		return isAlpha(c)
	case "blank":
		return c == ' ' || c == '\t'
	case "cntrl":
		return c < 32 || c == 127
	case "digit":
		return isDigit(c)
	case "graph":
		return c > 32 && c < 127
	case "lower":
		return c >= 'a' && c <= 'z'
	case "print":
		return c >= 32 && c < 127
	case "punct":
		return c > 32 && c < 127 && !isAlpha(c) && !isDigit(c)
	case "space":
		return c == ' ' || c >= '\t' && c <= '\r'
	case "upper":
		return c >= 'A' && c <= 'Z'
	case "xdigit":
		return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
	}
	return false
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
