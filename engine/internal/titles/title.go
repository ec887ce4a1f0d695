// Package titles derives a session's title: cut from its first prompt
// (FromPrompt), or given by its user on one line (NameLine). A title is
// shown wherever sessions are listed, so it holds no control characters.
// It imports nothing of cairn and holds no lock.
package titles

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Max is the longest title cut from a prompt, in characters.
const Max = 100

// Empty is the title of a session whose first prompt has no text.
const Empty = "(empty prompt)"

// FromPrompt is the first non-blank line of a prompt, cut at a word
// boundary to at most 100 characters (a single word longer than that is cut
// at 100 characters). A prompt with nothing in it still gets a title.
//
// A title is shown wherever sessions are listed, so it holds no control
// characters: terminal escape sequences in the prompt are dropped whole,
// other controls become spaces, and bytes that are not UTF-8 become U+FFFD.
// The prompt itself is kept as it was typed.
//
// A slash command as Claude Code's transcript holds it
// ("<command-message>…</command-message><command-name>/review</command-name>
// <command-args>the parser</command-args>") is titled as it was typed:
// "/review the parser".
func FromPrompt(p string) string {
	p = plainText(commandText(p))
	line := ""
	for l := range strings.SplitSeq(p, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			line = l
			break
		}
	}
	if line == "" {
		return Empty
	}
	line = strings.Join(strings.FieldsFunc(line, unicode.IsSpace), " ")
	if utf8.RuneCountInString(line) <= Max {
		return line
	}
	runes := []rune(line)
	cut := runes[:Max]
	if !unicode.IsSpace(runes[Max]) {
		if i := lastSpace(cut); i > 0 {
			cut = cut[:i]
		}
	}
	return strings.TrimSpace(string(cut))
}

// commandText is a slash command's prompt as it was typed (see
// FromPrompt), or p when it is none.
func commandText(p string) string {
	tag := func(name string) (string, bool) {
		_, rest, ok := strings.Cut(p, "<"+name+">")
		if !ok {
			return "", false
		}
		v, _, ok := strings.Cut(rest, "</"+name+">")
		return strings.TrimSpace(v), ok
	}
	name, ok := tag("command-name")
	if !ok || name == "" {
		if msg, ok := tag("command-message"); ok && msg != "" {
			return msg
		}
		return p
	}
	if !strings.HasPrefix(name, "/") {
		name = "/" + name
	}
	if args, _ := tag("command-args"); args != "" {
		return name + " " + args
	}
	return name
}

func lastSpace(r []rune) int {
	for i := len(r) - 1; i >= 0; i-- {
		if unicode.IsSpace(r[i]) {
			return i
		}
	}
	return -1
}

// plainText is s with terminal escape sequences removed (CSI: ESC [ ...
// final byte; OSC, DCS and the like: up to BEL or ESC \; any other: ESC and
// the byte after it), other controls but line feeds turned into spaces, and
// invalid UTF-8 replaced.
func plainText(s string) string {
	clean := true
	for _, r := range s {
		if r != '\n' && (r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f) || r == utf8.RuneError {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == 0x1b:
			i += escapeLen(s[i:])
			continue
		case r == '\n':
			b.WriteByte('\n')
		case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f:
			b.WriteByte(' ')
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// escapeLen is the length of the escape sequence at the start of s (which
// starts with ESC), as far as s goes.
func escapeLen(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	switch s[1] {
	case '[': // CSI: parameters and intermediates, then one final byte
		for i := 2; i < len(s); i++ {
			if c := s[i]; c >= 0x40 && c <= 0x7e {
				return i + 1
			} else if c < 0x20 || c > 0x7e {
				return i // not a CSI after all: drop only what came before
			}
		}
		return len(s)
	case ']', 'P', '_', '^', 'X': // strings: to BEL or ST (ESC \)
		for i := 2; i < len(s); i++ {
			if s[i] == 0x07 {
				return i + 1
			}
			if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
			if s[i] == '\n' {
				return i
			}
		}
		return len(s)
	}
	return 2
}

// NameLine is a name the user gives a session (rename, /rename) as its
// title: one line, otherwise as typed. White space at either end goes, and
// a run of white space holding a line break or a tab (\n \r \t \v \f,
// U+0085, U+2028, U+2029) becomes one space, so a pasted name stays on its
// row of a listing; spaces typed between words, and every other character,
// stay as given (a listing escapes controls when it shows them).
func NameLine(name string) string {
	name = strings.TrimSpace(name)
	if !strings.ContainsFunc(name, breaksLine) {
		return name
	}
	var b strings.Builder
	for i := 0; i < len(name); {
		r, n := utf8.DecodeRuneInString(name[i:])
		if !unicode.IsSpace(r) {
			b.WriteString(name[i : i+n])
			i += n
			continue
		}
		j, breaks := i, false
		for j < len(name) {
			r, n := utf8.DecodeRuneInString(name[j:])
			if !unicode.IsSpace(r) {
				break
			}
			breaks = breaks || breaksLine(r)
			j += n
		}
		if breaks {
			b.WriteByte(' ')
		} else {
			b.WriteString(name[i:j])
		}
		i = j
	}
	return b.String()
}

// breaksLine reports whether r is white space that is not a space: it
// breaks a line or moves to a tab stop.
func breaksLine(r rune) bool {
	switch r {
	case '\n', '\r', '\t', '\v', '\f', 0x85, 0x2028, 0x2029:
		return true
	}
	return false
}
