package importer

import "strings"

// tips is a Claude Code read's Tip (ccState.Tip): each line's uuid, to the
// key of the item its children hang under. A long session's mark holds one
// for every line of its transcript, thousands, and a catch-up looks up a
// few (the parent of the first line it reads: the lines after hang under
// lines of the same read). So a State parsed from its kept form does not
// make them into a map: it keeps their entry lines (text) and looks a uuid
// up there, from the end (a later entry of a uuid wins, and a line's
// parent is most often a recent line), only when the map (the entries set
// since) lacks it. A read that scans text often (uuids the mark lacks:
// each such look-up reads it all) parses it into the map once.
type tips struct {
	m       map[string]string
	text    string // entry lines of a kept form not parsed into m; entries in m are newer
	scanned int    // bytes of text read by look-ups
	// own: text is a mapped kept form (parseState), given back when the
	// catch-up ends: a tip looked up is a copy, so none is a part of it.
	own bool
}

func newTips(n int) tips { return tips{m: make(map[string]string, n)} }

// get is uuid's tip.
func (t *tips) get(uuid string) (string, bool) {
	k, ok := t.lookup(uuid)
	if t.own {
		k = strings.Clone(k)
	}
	return k, ok
}

// lookup is uuid's tip, maybe a part of text.
func (t *tips) lookup(uuid string) (string, bool) {
	if k, ok := t.m[uuid]; ok || t.text == "" {
		return k, ok
	}
	if t.scanned > 2*len(t.text) {
		t.parse()
		k, ok := t.m[uuid]
		return k, ok
	}
	field := uuid
	if needsQuote(field) {
		field = quote(field)
	}
	at := strings.LastIndex(t.text, "\nt\t"+field+"\t")
	if at >= 0 {
		at++
		t.scanned += len(t.text) - at
	} else {
		t.scanned += len(t.text)
		if !strings.HasPrefix(t.text, "t\t"+field+"\t") {
			return "", false
		}
		at = 0
	}
	line, _, _ := strings.Cut(t.text[at:], "\n")
	f, err := fields(line, nil)
	if err != nil || len(f) != 3 {
		return "", false // never: ParseState read every line
	}
	return tipKey(f[1], f[2]), true
}

// set sets uuid's tip.
func (t *tips) set(uuid, key string) { t.m[uuid] = key }

// all is every tip, in a map of their own.
func (t *tips) all() map[string]string {
	t.parse()
	return t.m
}

// parse parses text into m, the entries m holds winning.
func (t *tips) parse() {
	if t.text == "" {
		return
	}
	m := make(map[string]string, strings.Count(t.text, "\nt\t")+1+len(t.m))
	var f []string
	for text := t.text; len(text) > 0; {
		line, rest, _ := strings.Cut(text, "\n")
		text = rest
		if !strings.HasPrefix(line, "t\t") {
			continue
		}
		var err error
		if f, err = fields(line, f[:0]); err == nil && len(f) == 3 {
			m[f[1]] = tipKey(f[1], f[2])
		}
	}
	for u, k := range t.m {
		m[u] = k
	}
	t.m, t.text = m, ""
}

// tipKey is the tip a "t" entry of uuid u names with k.
func tipKey(u, k string) string {
	switch k {
	case "=":
		return u
	case "-":
		return ""
	}
	return k
}
