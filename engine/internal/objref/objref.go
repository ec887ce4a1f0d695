package objref

import (
	"bytes"
	"strings"

	"cairn/internal/lazyre"
	"cairn/internal/vfs"
	"cairn/journal"
)

// Ref finds the objects a line or file names: submatch 1 of each match is
// an oid.
var Ref = lazyre.New(`"oid":\s*"([0-9a-f]{64})"`)

// Add adds to named every oid b names.
func Add(b []byte, named map[string]bool) {
	if !bytes.Contains(b, []byte(`"oid"`)) {
		return
	}
	for _, m := range Ref.FindAllSubmatch(b, -1) {
		named[string(m[1])] = true
	}
}

// File adds to named the objects file name of fsys names. A journal
// (.jsonl) is read a line at a time (it can be large, and a torn last line
// is left out); any other file whole.
func File(fsys vfs.FS, name string, named map[string]bool) error {
	if strings.HasSuffix(name, ".jsonl") {
		_, err := journal.Read(fsys, name, func(b []byte) error {
			Add(b, named)
			return nil
		})
		return err
	}
	b, err := vfs.ReadFile(fsys, name)
	if err == nil {
		Add(b, named)
	}
	return err
}
