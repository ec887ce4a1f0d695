package term

import "github.com/charmbracelet/x/ansi"

// textWidth is the number of terminal cells s takes: a wide character
// (CJK, most emoji) takes two, a combining mark none. Escape sequences
// (a coloured prompt) take none.
//
// Widths are those of whole grapheme clusters, as the editor's own
// measure (clipperhouse/displaywidth, text.go) has them too: an emoji
// cluster is two cells however many code points it joins (a ZWJ family,
// an emoji with its skin tone, a character made emoji by U+FE0F). The
// terminals disagree among themselves here. Those that cluster graphemes
// (kitty, Ghostty, WezTerm and iTerm2 among them) draw such a cluster in
// two cells; those that add up the widths of its code points (xterm, VTE)
// give a family six and a skin-toned emoji four; tmux 3.3a gives a ZWJ
// family two cells but a skin-toned emoji four and a U+FE0F emoji one,
// and its later releases move toward the cluster rule. cairn follows the
// cluster rule, the one Unicode text segmentation and the newer terminals
// share (the picker alone measures as its renderer lays cells out,
// pickcells.go), and does not guess the terminal: on one that counts otherwise,
// the cursor stands off by the difference on a line holding such an
// emoji, and the text itself is right.
func textWidth(s string) int { return ansi.StringWidth(s) }
