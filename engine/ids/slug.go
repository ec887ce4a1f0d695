package ids

import (
	"strconv"
	"strings"
)

// MaxLen is the most characters an id may have, prefix and collision suffix
// included. Part of the format: stored ids never exceed it.
const MaxLen = 64

// Fallback is the slug of a description with no usable characters.
const Fallback = "task"

// Normalize turns s into slug characters: lowercase ASCII letters and digits,
// every other run collapsed to one '-', no leading or trailing '-'. It may
// return "".
func Normalize(s string) string {
	var b strings.Builder
	b.Grow(min(len(s), 4*MaxLen))
	dash := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		default:
			dash = b.Len() > 0
			continue
		}
		if dash {
			b.WriteByte('-')
			dash = false
		}
		b.WriteByte(c)
	}
	return b.String()
}

// Valid reports whether s is an id as this package makes them: 1 to MaxLen
// characters of [a-z0-9-], not starting or ending with '-', with no "--".
// Callers use it before an id becomes part of a file name.
func Valid(s string) bool {
	if len(s) == 0 || len(s) > MaxLen || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c == '-':
			if s[i-1] == '-' {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// Slug is the id of a task described by description: its slug (Fallback when
// nothing usable is left), made unique with Unique.
func Slug(description string, taken func(string) bool) string {
	base := Normalize(description)
	if base == "" {
		base = Fallback
	}
	return unique("", base, taken)
}

// Unique returns id cut to MaxLen when taken is nil or says it is free, and
// otherwise the first free one of id-2, id-3, ..., each cut so that it fits
// in MaxLen. id should already be made of slug characters (Normalize).
// taken must say false for some candidate, or Unique does not return.
func Unique(id string, taken func(string) bool) string {
	if id = cut(id, MaxLen); id == "" {
		id = Fallback
	}
	return unique("", id, taken)
}

// unique keeps prefix whole and cuts base to make room for a suffix.
func unique(prefix, base string, taken func(string) bool) string {
	room := MaxLen - len(prefix)
	id := prefix + cut(base, room)
	if taken == nil || !taken(id) {
		return id
	}
	for n := 2; ; n++ {
		suffix := "-" + strconv.Itoa(n)
		b := cut(base, room-len(suffix))
		if b == "" {
			// Only a pathological prefix leaves no room: drop the '-'
			// that ends it rather than doubling it.
			id = strings.TrimSuffix(prefix, "-") + suffix
		} else {
			id = prefix + b + suffix
		}
		if !taken(id) {
			return id
		}
	}
}

// cut shortens s to at most n bytes and drops the '-' that would end it.
func cut(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) > n {
		s = s[:n]
	}
	return strings.TrimRight(s, "-")
}
