package term

import "github.com/charmbracelet/x/ansi"

// textWidth is the number of terminal cells s takes: a wide character
// (CJK, most emoji) takes two, a combining mark none.
func textWidth(s string) int { return ansi.StringWidth(s) }
