package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cairn/engine/internal/convlog"
	"cairn/internal/vfs"
	"cairn/journal"
)

// FuzzParseConfig: any config.json either parses into values inside their
// bounds or is refused with a configError; never a panic.
func FuzzParseConfig(f *testing.F) {
	f.Add([]byte(`{"snapshots":{"enabled":false,"max_per_session":3,"required":["a/**"]}}`))
	f.Add([]byte(`{"storage":{"max_eager_load_mb":5,"retention":{"trim":{"keep_last":2,"keep_within":"2y5m"}}}}`))
	f.Add([]byte(`{"history":{"max":0}}`))
	f.Add([]byte(`{"snapshots":{"required":true}} `))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := parseConfig(b)
		if err != nil {
			var ce *configError
			if !errors.As(err, &ce) || !errors.Is(err, ErrBadInput) {
				t.Fatalf("error of the wrong kind: %v", err)
			}
			return
		}
		if c.Snapshots.MaxPerSession < 1 || c.Snapshots.MaxFileBytes < 1 || c.History.Max < 1 || c.Storage.MaxEagerLoadMB < 1 {
			t.Fatalf("accepted out-of-bounds values: %+v", c)
		}
	})
}

// FuzzFoldItems: any items journal folds without a panic, and the head
// path only holds items the journal has, with no cycle.
func FuzzFoldItems(f *testing.F) {
	f.Add([]byte(`{"v":1,"kind":"session","session":"s","at":"2026-01-01T00:00:00.000Z"}
{"v":1,"kind":"item","id":"i-1","type":"user","text":"hi"}
{"v":1,"kind":"item","id":"i-2","parent":"i-1","type":"assistant","text":"yo"}
{"v":1,"kind":"head","to":"i-1","why":"revert"}
`))
	f.Add([]byte(`{"v":1,"kind":"item","id":"i-1","parent":"i-2","type":"user"}
{"v":1,"kind":"item","id":"i-2","parent":"i-1","type":"user"}
{"v":1,"kind":"head","to":"i-9"}
{"v":1,"kind":"turn","turn":{"n":-5,"spend":{"cost_usd":1e308}}}
{"v":1,"kind":"meta","meta":{"pinned":"yes"}}
`))
	f.Add([]byte("{\"v\":1,\"kind\":\"item\",\"id\":\"i-x\",\"type\":\"compaction\",\"replaces\":[\"i-x\",\"i-x\"]}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		st := newState("s", "/w")
		journal.Scan(bytes.NewReader(b), journal.MaxLine, func(line []byte) error {
			var l itemLine
			if json.Unmarshal(line, &l) == nil && l.V == 1 {
				st.Fold(&l)
			}
			return nil
		})
		path := st.HeadPath()
		if len(path) > st.Len() {
			t.Fatalf("head path of %d items from %d items: a cycle", len(path), st.Len())
		}
		for _, it := range path {
			if st.Item(it.ID) != it {
				t.Fatal("head path holds an item the journal does not")
			}
		}
		convlog.RequestView(path)
		recordOf(st, nil)
	})
}

// FuzzReadRecord: any <id>.json reads as a record of that id or is refused.
func FuzzReadRecord(f *testing.F) {
	id := "0b0b0b0b-0000-4000-8000-000000000000"
	f.Add([]byte(`{"v":1,"id":"` + id + `","title":"t","counts":{"items":1}}`))
	f.Add([]byte(`{"v":2,"id":"` + id + `"}`))
	f.Add([]byte(`{"v":1,"id":"../../x"}`))
	f.Add([]byte(`garbage`))
	f.Fuzz(func(t *testing.T, b []byte) {
		mem := vfs.NewMem()
		mem.MkdirAll("w/sessions", vfs.DirPerm)
		vfs.WriteFileAtomic(mem, "w/sessions/"+id+".json", b)
		r, err := readRecord(mem, "w", id)
		if err == nil && (r.ID != id || r.V != 1) {
			t.Fatalf("accepted a record of id %q version %d", r.ID, r.V)
		}
	})
}

// FuzzResolveRef: any SESSION argument resolves to a real session of the
// workspace or is refused; none reaches outside the state folder.
func FuzzResolveRef(f *testing.F) {
	for _, s := range []string{"", "0", "../x", "/etc/passwd", "title", "sessions/../..", "\x00", strings.Repeat("a", 300)} {
		f.Add(s)
	}
	ctx := context.Background()
	home := filepath.Join(f.TempDir(), "home")
	store, err := Open(home)
	if err != nil {
		f.Fatal(err)
	}
	ws, _ := store.Workspace(f.TempDir())
	s := ws.Create(SessionOptions{})
	s.Append(ctx, Item{Type: User, Text: "title"})
	s.Close()
	f.Fuzz(func(t *testing.T, ref string) {
		id, err := ws.Resolve(ctx, ref)
		if err != nil {
			return
		}
		if id != s.ID() {
			t.Fatalf("Resolve(%q) = %q, not a session of the workspace", ref, id)
		}
		if _, err := os.Stat(filepath.Join(ws.Folder(), "sessions", id+".items.jsonl")); err != nil {
			t.Fatal(err)
		}
	})
}
