package shell

import "testing"

func TestShellTailHead(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
		cut  int64
	}{
		{"abc", 5, "abc", 0},
		{"abcdef", 3, "def", 3},
		{"aéb", 2, "b", 3}, // "é" is 2 bytes: the cut moves past its second byte
		{"a日本", 4, "本", 4},
	} {
		got, cut := tail([]byte(c.in), c.n)
		if got != c.want || cut != c.cut {
			t.Errorf("tail(%q, %d) = %q, %d", c.in, c.n, got, cut)
		}
	}
	if got, cut := Head("日本語", 4); got != "日" || cut != 6 {
		t.Errorf("head = %q, %d", got, cut)
	}
}
