package patch

import (
	"errors"
	"strings"
	"testing"
)

// applyOne parses an envelope that changes one file and applies it to old.
func applyOne(t *testing.T, patch, old string) (string, error) {
	t.Helper()
	files, err := Parse([]byte(patch))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	if len(files) != 1 {
		t.Fatalf("%d files", len(files))
	}
	b, err := files[0].NewContent([]byte(old))
	return string(b), err
}

func TestEnvelopeParse(t *testing.T) {
	files, err := Parse([]byte(`*** Begin Patch
*** Add File: path/add.py
+abc
+def
*** Delete File: path/delete.py
*** Update File: path/update.py
*** Move to: path/update2.py
@@ def f():
-    pass
+    return 123
*** End Patch
`))
	if err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, f := range files {
		got = append(got, f.Kind.String()+" "+f.Path+">"+f.MoveTo)
	}
	if want := "add path/add.py>|delete path/delete.py>|update path/update.py>path/update2.py"; strings.Join(got, "|") != want {
		t.Fatalf("files %q, want %q", strings.Join(got, "|"), want)
	}
	if b, _ := files[0].NewContent(nil); string(b) != "abc\ndef\n" {
		t.Fatalf("added %q", b)
	}
	if b, err := files[2].NewContent([]byte("x\ndef f():\n    pass\ny\n")); err != nil || string(b) != "x\ndef f():\n    return 123\ny\n" {
		t.Fatalf("updated %q, %v", b, err)
	}
}

func TestEnvelopeApply(t *testing.T) {
	for _, c := range []struct {
		name, patch, old, want string
	}{
		{"two hunks", "*** Begin Patch\n*** Update File: m.txt\n@@\n-line2\n+changed2\n@@\n-line4\n+changed4\n*** End Patch",
			"line1\nline2\nline3\nline4\n", "line1\nchanged2\nline3\nchanged4\n"},
		{"no @@ on the first hunk", "*** Begin Patch\n*** Update File: m.txt\n import foo\n+bar\n*** End Patch",
			"import foo\nbaz\n", "import foo\nbar\nbaz\n"},
		{"trailing white space ignored", "*** Begin Patch\n*** Update File: m.txt\n@@\n-foo\n+FOO\n bar\n*** End Patch",
			"foo   \nbar\t\n", "FOO\nbar\n"},
		{"surrounding white space ignored", "*** Begin Patch\n*** Update File: m.txt\n@@\n-foo\n+FOO\n*** End Patch",
			"   foo  \n", "FOO\n"},
		{"typographic dash read as ASCII", "*** Begin Patch\n*** Update File: m.txt\n@@\n-a - b\n+a + b\n*** End Patch",
			"a \u2014 b\n", "a + b\n"},
		{"end of file", "*** Begin Patch\n*** Update File: m.txt\n@@\n-x\n+y\n*** End of File\n*** End Patch",
			"x\nmid\nx\n", "x\nmid\ny\n"},
		{"newline added at the end", "*** Begin Patch\n*** Update File: m.txt\n@@\n-no newline at end\n+first line\n+second line\n*** End Patch",
			"no newline at end", "first line\nsecond line\n"},
		{"pure addition after context", "*** Begin Patch\n*** Update File: m.txt\n@@ def f():\n+    x = 1\n*** End Patch",
			"def f():\n    pass\n", "def f():\n    x = 1\n    pass\n"},
		{"pure addition at the end", "*** Begin Patch\n*** Update File: m.txt\n@@\n+tail\n*** End Patch",
			"a\nb\n", "a\nb\ntail\n"},
		{"deletion only", "*** Begin Patch\n*** Update File: m.txt\n@@\n a\n-b\n c\n*** End Patch",
			"a\nb\nc\n", "a\nc\n"},
		{"CRLF kept", "*** Begin Patch\r\n*** Update File: m.txt\r\n@@\r\n-b\r\n+B\r\n*** End Patch\r\n",
			"a\r\nb\r\n", "a\r\nB\r\n"},
		{"heredoc", "<<'EOF'\n*** Begin Patch\n*** Update File: m.txt\n@@\n-a\n+b\n*** End Patch\nEOF\n", "a\n", "b\n"},
		{"padded markers", "  *** Begin Patch  \n *** Update File: m.txt\n@@\n-a\n+b\n  *** End Patch\n", "a\n", "b\n"},
		{"context then lines", "*** Begin Patch\n*** Update File: m.txt\n@@ class B\n-  x\n+  y\n*** End Patch",
			"class A\n  x\nclass B\n  x\n", "class A\n  x\nclass B\n  y\n"},
		{"unicode", "*** Begin Patch\n*** Update File: m.txt\n@@\n-héllo wörld\n+héllo wörld ✓\n*** End Patch",
			"héllo wörld\n", "héllo wörld ✓\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := applyOne(t, c.patch, c.old)
			if err != nil || got != c.want {
				t.Fatalf("got %q, %v; want %q", got, err, c.want)
			}
		})
	}
}

func TestEnvelopeHunkErrors(t *testing.T) {
	for _, c := range []struct {
		name, patch, old string
		hunk             int
	}{
		{"missing lines", "*** Begin Patch\n*** Update File: m.txt\n@@\n-nope\n+x\n*** End Patch", "a\n", 1},
		{"missing context", "*** Begin Patch\n*** Update File: m.txt\n@@\n-a\n+b\n@@ fn gone()\n-c\n+d\n*** End Patch", "a\nc\n", 2},
		{"out of order", "*** Begin Patch\n*** Update File: m.txt\n@@\n-c\n+C\n@@\n-a\n+A\n*** End Patch", "a\nc\n", 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := applyOne(t, c.patch, c.old)
			var he *HunkError
			if !errors.As(err, &he) || he.Hunk != c.hunk || he.Path != "m.txt" {
				t.Fatalf("error %v, want hunk %d of m.txt", err, c.hunk)
			}
		})
	}
}

func TestEnvelopeMalformed(t *testing.T) {
	for _, p := range []string{
		"",
		"bad",
		"*** Begin Patch\nbad",
		"*** Begin Patch\n*** End Patch",
		"*** Begin Patch\n*** Update File: test.py\n*** End Patch",
		"*** Begin Patch\n*** Frobnicate File: foo\n*** End Patch",
		"*** Begin Patch\n*** Update File: m.txt\n@@\n-a\n+b\nnot a diff line\n@@ x\n*** End Patch",
		"*** Begin Patch\n*** Update File: m.txt\n@@\n-a\n@@ bad first\n*** End Patch",
		"*** Begin Patch\n*** Update File: m.txt\n@@\n*** End of File\n*** End Patch",
		"*** Begin Patch\n*** Update File: m.txt\n-a\n+b\nzzz\n*** End Patch",
		"*** Begin Patch\n*** Add File:\n+x\n*** End Patch",
	} {
		if files, err := Parse([]byte(p)); !errors.Is(err, ErrMalformed) {
			t.Errorf("%q: %d files, error %v; want malformed", p, len(files), err)
		}
	}
}

// FuzzEnvelope: no input makes the envelope parser or its applier panic,
// and a parsed Update always gives content ending in a newline.
func FuzzEnvelope(f *testing.F) {
	f.Add([]byte("*** Begin Patch\n*** Update File: a\n@@ x\n-a\n+b\n*** End of File\n*** End Patch\n"), []byte("x\na\n"))
	f.Add([]byte("*** Begin Patch\n*** Add File: a\n+x\n*** Delete File: b\n*** End Patch"), []byte(""))
	f.Add([]byte("<<EOF\n*** Begin Patch\n*** Update File: a\n*** Move to: b\n\n@@\n \n+\n*** End Patch\nEOF"), []byte("\n\n"))
	f.Fuzz(func(t *testing.T, patch, old []byte) {
		files, err := parseEnvelope(patch)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v is not ErrMalformed", err)
			}
			return
		}
		for _, f := range files {
			b, err := f.NewContent(old)
			if err == nil && f.Kind == Update && (len(b) == 0 || b[len(b)-1] != '\n') {
				t.Fatalf("update gave %q", b)
			}
		}
	})
}
