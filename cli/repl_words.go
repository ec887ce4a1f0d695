package cli

import (
	"errors"
	"fmt"
	"strings"
	"unicode"

	"mvdan.cc/sh/v3/syntax"
)

// The REPL's quoting rule is a shell's: a command line is split into words
// by mvdan.cc/sh's parser, the one the engine reads shell lines with. A
// word is 'single quoted', "double quoted" (a backslash escapes $ ` " and
// \ there), or bare (a backslash escapes the next character). Nothing is
// expanded, so a word a shell would expand (a $ or ` substitution, a glob
// or brace, a leading ~) is refused rather than taken as it is typed, as
// is anything that is not a word (| & ; < > and parentheses).

// errNotWords is what shellWords refuses.
var errNotWords = errors.New("not shell words")

// shellWords splits s into the words a POSIX shell would give, expanding
// nothing (see above). A # is a plain character, also at a word's start
// where a shell would start a comment (/snapshots restore #2). An error
// wraps errNotWords and says what to quote.
func shellWords(s string) ([]string, error) {
	for {
		words, end, err := parseWords(s)
		if err != nil {
			return nil, err
		}
		// The parser stops at a comment: its # becomes an escaped one, and
		// the line is parsed again.
		i := strings.IndexFunc(s[end:], func(r rune) bool { return !unicode.IsSpace(r) })
		if i < 0 {
			return words, nil
		}
		s = s[:end+i] + `\` + s[end+i:]
	}
}

// parseWords is shellWords for a line whose # starts a comment: its words,
// and where the last one ends.
func parseWords(s string) (words []string, end int, err error) {
	var bad error
	perr := syntax.NewParser().Words(strings.NewReader(s), func(w *syntax.Word) bool {
		lit, err := wordText(w)
		if err != nil {
			bad = err
			return false
		}
		words = append(words, lit)
		end = int(w.End().Offset())
		return true
	})
	switch {
	case bad != nil:
		return nil, 0, bad
	case perr != nil:
		return nil, 0, fmt.Errorf("%w: %v; quote the words that hold it", errNotWords, syntaxMessage(perr))
	}
	return words, end, nil
}

// syntaxMessage is the parser's message without its "line:column: "
// position (the line is one line the person just typed).
func syntaxMessage(err error) string {
	var pe syntax.ParseError
	if errors.As(err, &pe) {
		return pe.Text
	}
	return err.Error()
}

// wordText is the text of w as a shell gives it, or why a shell would
// expand it.
func wordText(w *syntax.Word) (string, error) {
	var b strings.Builder
	refuse := func(what string) (string, error) {
		return "", fmt.Errorf("%w: %s is not expanded here; quote it ('...') to mean it as it is typed", errNotWords, what)
	}
	for i, part := range w.Parts {
		switch x := part.(type) {
		case *syntax.Lit:
			if c := strings.IndexAny(unescapedGlob(x.Value), "*?[{"); c >= 0 {
				return refuse(fmt.Sprintf("%q (a shell expands %c)", x.Value, unescapedGlob(x.Value)[c]))
			}
			if i == 0 && strings.HasPrefix(x.Value, "~") {
				return refuse(fmt.Sprintf("%q (a shell expands ~)", x.Value))
			}
			b.WriteString(unescape(x.Value, ""))
		case *syntax.SglQuoted:
			if x.Dollar {
				return refuse("$'...'")
			}
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			if x.Dollar {
				return refuse(`$"..."`)
			}
			for _, q := range x.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return refuse(fmt.Sprintf("%q", wordSource(x)))
				}
				b.WriteString(unescape(l.Value, "$`\"\\\n"))
			}
		default:
			return refuse(fmt.Sprintf("%q", wordSource(w)))
		}
	}
	return b.String(), nil
}

// wordSource is node printed back as shell source, to name it.
func wordSource(node syntax.Node) string {
	var b strings.Builder
	syntax.NewPrinter().Print(&b, node)
	return b.String()
}

// unescape takes out the backslashes of s that escape the next
// character: every one when only is "" (a bare word), else those before a
// character of only (inside double quotes).
func unescape(s, only string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && (only == "" || strings.IndexByte(only, s[i+1]) >= 0) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unescapedGlob is s with every escaped character (a backslash and the
// character after it) blanked, so that \* is not taken for a glob.
func unescapedGlob(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	b := []byte(s)
	for i := 0; i < len(b); i++ {
		if b[i] == '\\' && i+1 < len(b) {
			b[i], b[i+1] = ' ', ' '
			i++
		}
	}
	return string(b)
}
