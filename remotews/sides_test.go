package remotews

import (
	"bytes"
	"encoding/json"
	"testing"

	"cairn/engine"
)

// The file bytes of one answer stay within a budget: past it, the sides
// go without their bytes and are marked too large, in the answer's own
// JSON, so the client shows "too large" for them; the sides before it
// arrive whole. An empty side is never marked.
func TestSidesBudget(t *testing.T) {
	side := func(b string) engine.Content {
		return engine.Content{Exists: true, Size: int64(len(b)), Data: []byte(b)}
	}
	ten := "0123456789"
	files := []engine.FileChange{
		{Path: "/w/a", Before: side(ten), After: side(ten)},
		{Path: "/w/b", Before: side(""), After: side(ten + ten)},
		{Path: "/w/c", Before: side("x"), After: side(ten)},
	}
	sides := SidesOf(files, 35)
	res, err := json.Marshal(DiffResult{Changes: engine.Changes{Files: files}, Sides: sides})
	if err != nil {
		t.Fatal(err)
	}
	var got DiffResult
	if err := json.Unmarshal(res, &got); err != nil {
		t.Fatal(err)
	}
	if !withSides(got.Changes.Files, got.Sides) {
		t.Fatal("sides do not match the files")
	}
	want := []struct{ before, after, beforeMissing, afterMissing string }{
		{ten, ten, "", ""},
		{"", "", "", "too large"},
		{"", "", "too large", "too large"},
	}
	n := 0
	for i, f := range got.Changes.Files {
		w := want[i]
		if string(f.Before.Data) != w.before || string(f.After.Data) != w.after ||
			f.Before.Missing != w.beforeMissing || f.After.Missing != w.afterMissing {
			t.Errorf("file %s: before %q (%q), after %q (%q); want %+v", f.Path,
				f.Before.Data, f.Before.Missing, f.After.Data, f.After.Missing, w)
		}
		n += len(f.Before.Data) + len(f.After.Data)
	}
	if n > 35 {
		t.Fatalf("%d bytes carried over a budget of 35", n)
	}

	// Within the budget, every side arrives as it is.
	files = []engine.FileChange{{Path: "/w/a", Before: side(ten), After: side(ten)}}
	sides = SidesOf(files, SideBudget)
	if !bytes.Equal(sides[0].Before, []byte(ten)) || !bytes.Equal(sides[0].After, []byte(ten)) || files[0].After.Missing != "" {
		t.Fatalf("within the budget: %+v %+v", sides, files)
	}
}
