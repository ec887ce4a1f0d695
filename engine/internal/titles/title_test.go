package titles

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// A title made from a prompt holds no control characters: escape
// sequences are dropped whole, other controls become spaces, bad UTF-8 is
// replaced. The prompt item keeps every byte.
func TestTitleDropsControls(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"x \x1b[31mred\x1b[0m text", "x red text"},
		{"evil\x1b]0;pwn\x07title", "eviltitle"},
		{"osc\x1b]52;c;Zm9v\x1b\\ st", "osc st"},
		{"bell\x07tab\tcr\rdel\x7fend", "bell tab cr del end"},
		{"c1\u009b2Jx", "c1 2Jx"},
		{"bad\xffutf8", "bad\uFFFDutf8"},
		{"\x1b[2J\x1b[H\nsecond line", "second line"},
		{"lone esc at end\x1b", "lone esc at end"},
	} {
		got := FromPrompt(c.in)
		if got != c.want {
			t.Errorf("FromPrompt(%q) = %q, want %q", c.in, got, c.want)
		}
		if !utf8.ValidString(got) || strings.ContainsFunc(got, func(r rune) bool { return r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f }) {
			t.Errorf("title %q holds a control character", got)
		}
	}
}

// A slash command as an agent's transcript holds it is titled as it was
// typed, not by its markup.
func TestTitleOfSlashCommand(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"<command-message>handgemacht:create-beads</command-message>\n<command-name>/handgemacht:create-beads</command-name>\n<command-args>websearch to learn how\n\nMaybe igniter?</command-args>",
			"/handgemacht:create-beads websearch to learn how"},
		{"<command-message>review is running…</command-message>\n<command-name>/review</command-name>\n<command-args></command-args>", "/review"},
		{"<command-name>clear</command-name>", "/clear"},
		{"<command-message>init is analyzing your codebase…</command-message>", "init is analyzing your codebase…"},
		{"explain <command-name> tags to me", "explain <command-name> tags to me"},
	} {
		if got := FromPrompt(c.in); got != c.want {
			t.Errorf("FromPrompt(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
