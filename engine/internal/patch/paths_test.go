package patch

import (
	"slices"
	"testing"
)

// Paths names every file a patch reads, makes, removes or moves to.
func TestPaths(t *testing.T) {
	text := "*** Begin Patch\n*** Add File: new.txt\n+x\n*** Delete File: gone.txt\n*** Update File: a.txt\n*** Move to: b.txt\n@@\n-1\n+2\n*** End Patch\n"
	got, err := Paths([]byte(text))
	if err != nil || !slices.Equal(got, []string{"new.txt", "gone.txt", "a.txt", "b.txt"}) {
		t.Fatalf("Paths = %v, %v", got, err)
	}
	if _, err := Paths([]byte("not a patch")); err == nil {
		t.Fatal("Paths of no patch: no error")
	}
}
