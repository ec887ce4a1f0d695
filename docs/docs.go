// Package docs holds cairn's documentation pages, so that `cairn help
// TOPIC` prints the page a topic names from the binary itself.
package docs

import (
	"embed"
	"io/fs"
	"sort"
	"strings"
)

//go:embed *.md
var pages embed.FS

// Page is the text of the page called name (the markdown file of that name
// in this folder), and whether there is one.
func Page(name string) (string, bool) {
	if name == "" || strings.ContainsAny(name, "/.") {
		return "", false
	}
	b, err := pages.ReadFile(name + ".md")
	if err != nil {
		return "", false
	}
	return string(b), true
}

// Topics are the names of the pages, sorted.
func Topics() []string {
	entries, _ := fs.ReadDir(pages, ".")
	var out []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".md"); ok {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}
