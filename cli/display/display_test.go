package display

import (
	"bytes"
	"strings"
	"testing"
)

func TestEscapes(t *testing.T) {
	for _, c := range []struct{ in, line, text, output string }{
		{"plain title", "plain title", "plain title", "plain title"},
		{"naïve 日本語 🎉", "naïve 日本語 🎉", "naïve 日本語 🎉", "naïve 日本語 🎉"},
		{"esc\x1b[31mRED\x1b[0m", `esc\x1b[31mRED\x1b[0m`, `esc\x1b[31mRED\x1b[0m`, "esc\x1b[31mRED\x1b[0m"},
		{"evil\x1b]0;pwn\x07title", `evil\x1b]0;pwn\x07title`, `evil\x1b]0;pwn\x07title`, `evil\x1b]0;pwn\x07title`},
		{"a\nb\tc\rd", `a\nb\tc\rd`, "a\nb\tc\\rd", "a\nb\tc\\rd"},
		{"nul\x00del\x7f", `nul\x00del\x7f`, `nul\x00del\x7f`, `nul\x00del\x7f`},
		{"c1\u009b2J", `c1\u009b2J`, `c1\u009b2J`, `c1\u009b2J`},
		{"bidi\u202eabc", `bidi\u202eabc`, `bidi\u202eabc`, `bidi\u202eabc`},
		{"bad\xff\xfeutf8", `bad\xff\xfeutf8`, `bad\xff\xfeutf8`, `bad\xff\xfeutf8`},
		{"cut\xe6\x97", `cut\xe6\x97`, `cut\xe6\x97`, `cut\xe6\x97`},
		{"clear\x1b[2J\x1b[1;1H", `clear\x1b[2J\x1b[1;1H`, `clear\x1b[2J\x1b[1;1H`, `clear\x1b[2J\x1b[1;1H`},
		{`back\slash`, `back\slash`, `back\slash`, `back\slash`},
	} {
		if got := Line(c.in); got != c.line {
			t.Errorf("Line(%q) = %q, want %q", c.in, got, c.line)
		}
		if got := Text(c.in); got != c.text {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, c.text)
		}
		if got := Output(c.in); got != c.output {
			t.Errorf("Output(%q) = %q, want %q", c.in, got, c.output)
		}
		for _, s := range []string{Line(c.in), Text(c.in)} {
			if strings.ContainsAny(s, "\x1b\x07\x00\x7f\r\u009b\u202e") || !utf8Valid(s) {
				t.Errorf("%q still holds a control or bad UTF-8: %q", c.in, s)
			}
		}
	}
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "") == s }

// A writer gives the same text however the input is cut into writes,
// including inside a UTF-8 sequence or an SGR sequence.
func TestWriterAcrossWrites(t *testing.T) {
	in := "a 日本\x1b[1;31mred\x1b[0m \x1b]52;c;Zm9v\x07 é\xff end\n"
	for _, sgr := range []bool{false, true} {
		want := Text(in)
		if sgr {
			want = Output(in)
		}
		for size := 1; size <= len(in); size++ {
			var buf bytes.Buffer
			w := Writer(&buf)
			if sgr {
				w = OutputWriter(&buf)
			}
			for i := 0; i < len(in); i += size {
				n, err := w.Write([]byte(in[i:min(i+size, len(in))]))
				if err != nil || n != min(size, len(in)-i) {
					t.Fatalf("Write: %d, %v", n, err)
				}
			}
			w.Flush()
			if buf.String() != want {
				t.Fatalf("sgr=%v, writes of %d bytes: %q, want %q", sgr, size, buf.String(), want)
			}
		}
	}
}

// A file name is quoted as a shell word when a reader could take it for
// more than one name; a plain one is left as it is.
func TestName(t *testing.T) {
	for in, want := range map[string]string{
		"main.go":         "main.go",
		"dir/a_b-c.txt":   "dir/a_b-c.txt",
		"notes.txt hello": "'notes.txt hello'",
		"a,b":             "'a,b'",
		"it's":            `'it'\''s'`,
		"x\ny":            `x\ny`,
		`a\b`:             `'a\b'`,
		"a\tb":            `'a\tb'`,
	} {
		if got := Name(in); got != want {
			t.Errorf("Name(%q) = %s, want %s", in, got, want)
		}
	}
}
