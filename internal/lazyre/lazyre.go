// Package lazyre holds regular expressions compiled on first use. A
// pattern with a counted repetition ("{1,64}") compiles to one instruction
// per repeat: compiled at package init, each costs every start of the cairn
// command a fraction of a millisecond, an agent's hook at every tool call
// included, even when nothing uses it. A Regexp is a constant in all but
// name: its pattern is fixed, and what it caches is its compiled form.
//
// The forms cairn checks names against ("^[A-Za-z0-9_.-]{1,128}$") are a
// run of character classes, each repeated, between the start and the end
// of the text. MatchString matches those with a loop over the text
// (simple.go), never compiling them, and gives the same answers.
package lazyre

import (
	"regexp"
	"sync"
)

// Regexp is a regular expression compiled the first time it is used.
type Regexp struct {
	expr   string
	re     func() *regexp.Regexp
	simple func() *simple // nil when expr is not of the simple form
}

// New is the Regexp of expr; expr must compile (regexp.MustCompile), which
// the first use checks.
func New(expr string) *Regexp {
	return &Regexp{
		expr:   expr,
		re:     sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) }),
		simple: sync.OnceValue(func() *simple { return parseSimple(expr) }),
	}
}

// Regexp is the compiled expression.
func (r *Regexp) Regexp() *regexp.Regexp { return r.re() }

// MatchString is regexp.Regexp.MatchString.
func (r *Regexp) MatchString(s string) bool {
	if m := r.simple(); m != nil {
		return m.match(s)
	}
	return r.re().MatchString(s)
}

// FindAllSubmatch is regexp.Regexp.FindAllSubmatch.
func (r *Regexp) FindAllSubmatch(b []byte, n int) [][][]byte { return r.re().FindAllSubmatch(b, n) }

// ReplaceAllString is regexp.Regexp.ReplaceAllString.
func (r *Regexp) ReplaceAllString(src, repl string) string { return r.re().ReplaceAllString(src, repl) }

// FindStringSubmatch is regexp.Regexp.FindStringSubmatch.
func (r *Regexp) FindStringSubmatch(s string) []string { return r.re().FindStringSubmatch(s) }
