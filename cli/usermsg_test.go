package cli

import "testing"

func TestUserText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"engine: write FORMAT: openat .FORMAT.812-0123456789abcdef.cairn-tmp: read-only file system; this session is not recorded",
			"write FORMAT: cannot open FORMAT: read-only file system; this session is not recorded"},
		{"index: index.json not saved: renameat .index.json.77-0123456789abcdef.cairn-tmp index.json: no space left on device",
			"index.json not saved: cannot write index.json: disk full"},
		{"engine: lock session: openat workspaces/ab/x.lock: read-only file system", "lock session: cannot open workspaces/ab/x.lock: read-only file system"},
		{"engine: no such session: no sessions in /tmp/w", "no such session: no sessions in /tmp/w"},
		{"engine: bad input: no file a.txt", "bad input: no file a.txt"},
		{"term: no such choice: \"abc\" (choose 1-120)", "no such choice: \"abc\" (choose 1-120)"},
		{"a plain message", "a plain message"},
	} {
		if got := userText(c.in); got != c.want {
			t.Errorf("userText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if plural(1, "item", "items") != "1 item" || plural(0, "item", "items") != "0 items" || plural(12, "item", "items") != "12 items" {
		t.Error("plural")
	}
}
