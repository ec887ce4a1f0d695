package lazyre

import (
	"regexp/syntax"
	"unicode/utf8"
)

// simple is an expression of the form ^E1E2...En$, each Ei a character
// class or a literal character repeated between lo and hi times, where a
// repeat of variable length cannot give up a character to what follows:
// its class shares no character with the classes after it, up to and
// including the first that must take at least one. Then taking as many
// characters as it can is the only way to match, and a loop over the text
// decides it exactly as the regexp engine does (invalid UTF-8 decoding to
// U+FFFD, one byte each, as there).
type simple []elem

type elem struct {
	lo, hi int    // hi < 0: no bound
	ranges []rune // inclusive pairs, as syntax.Regexp.Rune of a class
}

func (e *elem) has(r rune) bool {
	for i := 0; i+1 < len(e.ranges); i += 2 {
		if e.ranges[i] <= r && r <= e.ranges[i+1] {
			return true
		}
	}
	return false
}

func (e *elem) meets(o *elem) bool {
	for i := 0; i+1 < len(e.ranges); i += 2 {
		for j := 0; j+1 < len(o.ranges); j += 2 {
			if e.ranges[i] <= o.ranges[j+1] && o.ranges[j] <= e.ranges[i+1] {
				return true
			}
		}
	}
	return false
}

// parseSimple is expr as a simple, or nil when it is not of that form.
func parseSimple(expr string) *simple {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil || re.Op != syntax.OpConcat || len(re.Sub) < 2 {
		return nil
	}
	subs := re.Sub
	if subs[0].Op != syntax.OpBeginText || subs[len(subs)-1].Op != syntax.OpEndText {
		return nil
	}
	var s simple
	for _, sub := range subs[1 : len(subs)-1] {
		if sub.Flags&syntax.FoldCase != 0 {
			return nil
		}
		switch sub.Op {
		case syntax.OpLiteral:
			for _, r := range sub.Rune {
				s = append(s, elem{1, 1, []rune{r, r}})
			}
			continue
		case syntax.OpCharClass:
			s = append(s, elem{1, 1, sub.Rune})
			continue
		}
		var lo, hi int
		switch sub.Op {
		case syntax.OpRepeat:
			lo, hi = sub.Min, sub.Max
		case syntax.OpStar:
			lo, hi = 0, -1
		case syntax.OpPlus:
			lo, hi = 1, -1
		case syntax.OpQuest:
			lo, hi = 0, 1
		default:
			return nil
		}
		c := sub.Sub[0]
		if c.Flags&syntax.FoldCase != 0 {
			return nil
		}
		switch {
		case c.Op == syntax.OpCharClass:
			s = append(s, elem{lo, hi, c.Rune})
		case c.Op == syntax.OpLiteral && len(c.Rune) == 1:
			s = append(s, elem{lo, hi, []rune{c.Rune[0], c.Rune[0]}})
		default:
			return nil
		}
	}
	for i := range s {
		if s[i].lo == s[i].hi {
			continue
		}
		for j := i + 1; j < len(s); j++ {
			if s[i].meets(&s[j]) {
				return nil
			}
			if s[j].lo > 0 {
				break
			}
		}
	}
	return &s
}

// match reports whether all of str matches.
func (s *simple) match(str string) bool {
	pos := 0
	for i := range *s {
		e := &(*s)[i]
		n := 0
		for pos < len(str) && (e.hi < 0 || n < e.hi) {
			r, w := utf8.DecodeRuneInString(str[pos:])
			if !e.has(r) {
				break
			}
			pos += w
			n++
		}
		if n < e.lo {
			return false
		}
	}
	return pos == len(str)
}
