package engine

import (
	"path"
	"strings"
)

// matchGlob matches a slash-separated name against a glob where "**" as a
// whole segment matches any number of segments and every other segment
// follows path.Match ("*", "?", "[...]").
func matchGlob(pattern, name string) (bool, error) {
	ps := strings.Split(strings.Trim(pattern, "/"), "/")
	ns := strings.Split(strings.Trim(name, "/"), "/")
	for _, p := range ps {
		if p != "**" {
			if _, err := path.Match(p, ""); err != nil {
				return false, err
			}
		}
	}
	return matchSegs(ps, ns), nil
}

func matchSegs(ps, ns []string) bool {
	for len(ps) > 0 {
		if ps[0] == "**" {
			for i := 0; i <= len(ns); i++ {
				if matchSegs(ps[1:], ns[i:]) {
					return true
				}
			}
			return false
		}
		if len(ns) == 0 {
			return false
		}
		if ok, _ := path.Match(ps[0], ns[0]); !ok {
			return false
		}
		ps, ns = ps[1:], ns[1:]
	}
	return len(ns) == 0
}
