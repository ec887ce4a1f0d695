package index

import (
	"slices"
	"sync"
	"testing"

	"cairn/internal/vfs"
)

// TestUnrecordedIsACopy: the sessions Unrecorded returns stay as they were
// when a later Refresh finds others; the index never writes into a slice
// it handed out.
func TestUnrecordedIsACopy(t *testing.T) {
	onEachFS(t, func(t *testing.T, fsys vfs.FS) {
		x := Open(fsys, ws)
		writeRaw(t, fsys, id(1)+".items.jsonl", "{}\n")
		writeRaw(t, fsys, id(2)+".items.jsonl", "{}\n")
		if _, err := x.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		got := x.Unrecorded()
		if want := []string{id(1), id(2)}; !slices.Equal(got, want) {
			t.Fatalf("Unrecorded = %v, want %v", got, want)
		}
		// Session 1 gets its record; session 3 comes without one.
		writeRec(t, fsys, rec(1, "one", at(1)))
		writeRaw(t, fsys, id(3)+".items.jsonl", "{}\n")
		if _, err := x.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		if want := []string{id(1), id(2)}; !slices.Equal(got, want) {
			t.Errorf("the slice handed out changed to %v, want %v", got, want)
		}
		if now, want := x.Unrecorded(), []string{id(2), id(3)}; !slices.Equal(now, want) {
			t.Errorf("Unrecorded = %v, want %v", now, want)
		}
	})
}

// TestUnrecordedConcurrent reads Unrecorded while Refresh runs (go test
// -race sees a read without the lock).
func TestUnrecordedConcurrent(t *testing.T) {
	fsys := vfs.NewMem()
	x := Open(fsys, ws)
	writeRaw(t, fsys, id(1)+".items.jsonl", "{}\n")
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 50; i++ {
			writeRaw(t, fsys, id(2+i)+".items.jsonl", "{}\n")
			if _, err := x.Refresh(ctx); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for i := 0; i < 200; i++ {
		for _, u := range x.Unrecorded() {
			if u == "" {
				t.Fatal("an empty id")
			}
		}
	}
	wg.Wait()
	if n := len(x.Unrecorded()); n != 51 {
		t.Errorf("%d unrecorded, want 51", n)
	}
}
