package engine

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxTitle is the longest title cut from a prompt, in characters.
const maxTitle = 100

// emptyTitle is the title of a session whose first prompt has no text.
const emptyTitle = "(empty prompt)"

// titleFromPrompt is the first non-blank line of a prompt, cut at a word
// boundary to at most 100 characters (a single word longer than that is cut
// at 100 characters). A prompt with nothing in it still gets a title.
func titleFromPrompt(p string) string {
	line := ""
	for l := range strings.SplitSeq(p, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			line = l
			break
		}
	}
	if line == "" {
		return emptyTitle
	}
	line = strings.Join(strings.FieldsFunc(line, unicode.IsSpace), " ")
	if utf8.RuneCountInString(line) <= maxTitle {
		return line
	}
	runes := []rune(line)
	cut := runes[:maxTitle]
	if !unicode.IsSpace(runes[maxTitle]) {
		if i := lastSpace(cut); i > 0 {
			cut = cut[:i]
		}
	}
	return strings.TrimSpace(string(cut))
}

func lastSpace(r []rune) int {
	for i := len(r) - 1; i >= 0; i-- {
		if unicode.IsSpace(r[i]) {
			return i
		}
	}
	return -1
}
