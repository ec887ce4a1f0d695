package patch

import (
	"errors"
	"testing"
)

func TestGitParse(t *testing.T) {
	files, err := Parse([]byte(`diff --git a/old.txt b/new/name.txt
similarity index 90%
rename from old.txt
rename to new/name.txt
index 1111111..2222222 100644
--- a/old.txt
+++ b/new/name.txt
@@ -1,2 +1,2 @@
 keep
-old
+new
diff --git a/run.sh b/run.sh
old mode 100644
new mode 100755
diff --git a/gone.txt b/gone.txt
deleted file mode 100644
index 3333333..0000000
--- a/gone.txt
+++ /dev/null
@@ -1 +0,0 @@
-bye
diff --git a/made.txt b/made.txt
new file mode 100755
index 0000000..4444444
--- /dev/null
+++ b/made.txt
@@ -0,0 +1 @@
+hi
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 4 {
		t.Fatalf("%d files", len(files))
	}
	r, m, d, a := files[0], files[1], files[2], files[3]
	if r.Kind != Update || r.Path != "old.txt" || r.MoveTo != "new/name.txt" || r.Copy || !r.Exclusive || r.Exec != nil {
		t.Fatalf("rename %+v", r)
	}
	if b, err := r.NewContent([]byte("keep\nold\n")); err != nil || string(b) != "keep\nnew\n" {
		t.Fatalf("rename gives %q, %v", b, err)
	}
	if m.Kind != Update || m.Path != "run.sh" || m.Exec == nil || !*m.Exec {
		t.Fatalf("mode change %+v", m)
	}
	if b, err := m.NewContent([]byte("echo\n")); err != nil || string(b) != "echo\n" {
		t.Fatalf("mode change gives %q, %v", b, err)
	}
	if d.Kind != Delete || d.Path != "gone.txt" {
		t.Fatalf("delete %+v", d)
	}
	var he *HunkError
	if _, err := d.NewContent([]byte("bye\nmore\n")); !errors.As(err, &he) {
		t.Fatalf("a delete of more than the patch names: %v", err)
	}
	if a.Kind != Add || a.Path != "made.txt" || !a.Exclusive || a.Exec == nil || !*a.Exec {
		t.Fatalf("add %+v", a)
	}
	if _, err := Parse([]byte("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n")); !errors.Is(err, ErrMalformed) {
		t.Fatalf("a short hunk: %v", err)
	}
}

// FuzzGit: no input makes the git diff parser or its applier panic; every
// parse error is ErrMalformed, every apply error a *HunkError.
func FuzzGit(f *testing.F) {
	f.Add([]byte("diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1,2 +1,2 @@\n x\n-y\n+z\n"), []byte("x\ny\n"))
	f.Add([]byte("diff --git a/a b/c\nsimilarity index 100%\nrename from a\nrename to c\n"), []byte("q"))
	f.Add([]byte("diff --git a/b b/b\nindex 0000000..1111111\nGIT binary patch\nliteral 5\nMcmZ?b4`D@q0RR91\n\nliteral 0\nHcmV?d00001\n\n"), []byte{0, 1, 2})
	f.Fuzz(func(t *testing.T, patch, old []byte) {
		files, err := parseGit(patch)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v is not ErrMalformed", err)
			}
			return
		}
		for _, f := range files {
			var he *HunkError
			if _, err := f.NewContent(old); err != nil && !errors.As(err, &he) {
				t.Fatalf("apply error %v is no HunkError", err)
			}
		}
	})
}
