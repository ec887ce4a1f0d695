package doccheck

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxEngineFile is the most lines a non-test file under engine/ may have,
// so a reader can hold one file at a time. engine/doc_map.go, the map of
// the engine in a comment, is the one file allowed past it (its header
// says why).
const maxEngineFile = 450

func TestEngineFilesStaySmall(t *testing.T) {
	root, err := filepath.Abs("../../engine")
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return err
		}
		if filepath.Base(p) == "doc_map.go" && filepath.Dir(p) == root {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if n := bytes.Count(b, []byte("\n")); n > maxEngineFile {
			rel, _ := filepath.Rel(root, p)
			t.Errorf("engine/%s has %d lines, more than %d: split it where its parts have their own job", rel, n, maxEngineFile)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
