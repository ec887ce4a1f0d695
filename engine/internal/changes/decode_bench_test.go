package changes

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	stdjson "encoding/json"
	"fmt"
	"testing"
	"time"

	"cairn/engine/internal/fstate"
	"cairn/internal/timefmt"
	"cairn/internal/vfs"
)

// editsJournal is a changes journal of n edits as a file tool writes them
// (a pre-image inline, the new content by hash), a shell call's call and
// record lines after every tenth.
func editsJournal(n int) []byte {
	var buf bytes.Buffer
	at := time.Date(2026, 12, 5, 8, 0, 0, 0, time.UTC)
	put := func(v any) {
		b, err := stdjson.Marshal(v)
		if err != nil {
			panic(err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	for i := range n {
		at = at.Add(time.Second)
		item := NewestItem(fmt.Sprintf("i-%08d", i))
		path := fmt.Sprintf("src/pkg%d/file%d.go", i%7, i%40)
		pre := []byte(fmt.Sprintf("package pkg%d\n\n// edit %d\n", i%7, i))
		sum := sha256.Sum256(pre)
		put(ChangeLine{V: 1, Kind: KindChange, ID: NewSnapID(at), Seq: i + 1, At: timefmt.Mk(at), Tool: "Edit",
			Call: fmt.Sprintf("i-%08d", i), Item: item, Scope: "file", Files: []FileChange{{
				Path:   path,
				Before: &fstate.State{SHA256: hex.EncodeToString(sum[:]), Size: int64(len(pre)), Mode: fstate.ModeFile, Perm: "0644", Data: pre},
				After:  &fstate.State{SHA256: fmt.Sprintf("%064x", i+1), Size: 40, Mode: fstate.ModeFile, Perm: "0644"},
			}}})
		if i%10 == 9 {
			id := NewSnapID(at)
			put(CallLine{V: 1, Kind: KindCall, ID: id, At: timefmt.Mk(at), Tool: "exec", Call: "i-x", Item: item, Scope: "paths", Paths: fstate.Names{path}})
			put(ChangeLine{V: 1, Kind: KindRecord, ID: id, Seq: i + 1, At: timefmt.Mk(at), Tool: "exec", Call: "i-x", Item: item, Scope: "paths",
				Files: []FileChange{{Path: path, Before: &fstate.State{OID: fmt.Sprintf("%064x", i), Size: 40, Mode: fstate.ModeFile, Perm: "0644"}}}})
		}
	}
	return buf.Bytes()
}

// BenchmarkFoldJournal folds the changes journal of a session with 2,000
// edits, as every hook's open does.
func BenchmarkFoldJournal(b *testing.B) {
	fsys := vfs.NewMem()
	data := editsJournal(2000)
	if err := vfs.WriteFileAtomic(fsys, "s.changes.jsonl", data); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var st Stack
		var recs Records
		f, err := FoldJournal(fsys, "s.changes.jsonl", &st, &recs)
		if err != nil || len(f.Unread) > 0 {
			b.Fatal(err, f.Unread)
		}
	}
}

// BenchmarkDecode decodes the lines of that journal, with Decode and as
// encoding/json would.
func BenchmarkDecode(b *testing.B) {
	lines := bytes.Split(bytes.TrimSuffix(editsJournal(2000), []byte("\n")), []byte("\n"))
	for _, c := range []struct {
		name string
		dec  func([]byte) (*Line, error)
	}{{"Decode", Decode}, {"encoding-json", stdDecode}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, l := range lines {
					if _, err := c.dec(l); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
