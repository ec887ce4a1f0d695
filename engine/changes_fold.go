package engine

import (
	"bytes"
	"fmt"

	"cairn/engine/internal/changes"
	"cairn/internal/vfs"
	"cairn/journal"
)

// mayRevert reports whether changes line b may be a file revert's or
// unrevert's ("revert", "reverted", "unrevert", "unreverted"): its kind is
// one of those words, or spelled with \u escapes. A superset: a path
// holding the word says yes too.
func mayRevert(b []byte) bool {
	return bytes.Contains(b, []byte("revert")) || bytes.Contains(b, []byte(`\u`))
}

// foldChanges reads a changes journal into a stack. A missing journal is an
// empty stack. A line that is not JSON or does not fit the stack is
// skipped, and named in st.unread.
func foldChanges(fsys vfs.FS, name string, st *snapStack) error {
	var skipped []UnreadRecord
	var at []int // the index among the lines read of each skipped one
	n := 0
	st.reverts = false
	stats, err := journal.Read(fsys, name, func(b []byte) error {
		n++
		st.reverts = st.reverts || mayRevert(b)
		l, err := changes.Decode(b)
		if err == nil {
			err = st.Fold(l)
			st.recs.Fold(l) // a bad record line is fsck's to name
		}
		if err != nil {
			skipped = append(skipped, UnreadRecord{Error: err.Error()})
			at = append(at, n)
		}
		return nil
	})
	if err != nil && !vfs.IsNotExist(err) {
		return fmt.Errorf("engine: read %s: %w", name, err)
	}
	st.unread = unreadLines(name, stats.Bad, skipped, at)
	return nil
}
