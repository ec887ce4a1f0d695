package remote

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"cairn/internal/vfs"
)

func testID(i int) string { return fmt.Sprintf("%08x-0000-4000-8000-000000000000", i) }

const testWS = "workspaces/w"

func mustNote(t *testing.T, fsys vfs.FS, id string) {
	t.Helper()
	if err := NoteChanged(fsys, testWS, id); err != nil {
		t.Fatal(err)
	}
}

func mustRead(t *testing.T, fsys vfs.FS, from ChangePos) (map[string]string, ChangePos) {
	t.Helper()
	seen, pos, err := readChanged(fsys, from)
	if err != nil {
		t.Fatalf("read from %+v: %v", from, err)
	}
	return seen, pos
}

// TestChangedRecordIsFollowed: a read from a position gives the sessions
// noted since, each once, and the position after them; a read from there
// gives what was noted later alone.
func TestChangedRecordIsFollowed(t *testing.T) {
	m := vfs.NewMem()
	start, err := changedEnd(m)
	if err != nil {
		t.Fatal(err)
	}
	mustNote(t, m, testID(1))
	mustNote(t, m, testID(2))
	mustNote(t, m, testID(1))
	seen, pos := mustRead(t, m, start)
	if len(seen) != 2 || seen[testID(1)] != testWS || seen[testID(2)] != testWS {
		t.Fatalf("read %v", seen)
	}
	mustNote(t, m, testID(3))
	if seen, _ := mustRead(t, m, pos); len(seen) != 1 || seen[testID(3)] == "" {
		t.Fatalf("read after the first %v", seen)
	}
	if end, _ := changedEnd(m); end.File != pos.File || end.Off <= pos.Off {
		t.Fatalf("the end %+v is not past %+v", end, pos)
	}
}

// TestChangedRecordLostIsSaid: a position the record no longer goes on
// from is said (the push then lists every session), whether the record
// was removed and begun again, cut short, or holds a line that does not
// decode; a position of none is said too.
func TestChangedRecordLostIsSaid(t *testing.T) {
	setup := func() (*vfs.Mem, ChangePos) {
		m := vfs.NewMem()
		start, _ := changedEnd(m)
		mustNote(t, m, testID(1))
		mustNote(t, m, testID(2))
		_, pos := mustRead(t, m, start)
		return m, pos
	}
	cases := map[string]func(m *vfs.Mem, pos ChangePos){
		"removed and begun again": func(m *vfs.Mem, pos ChangePos) {
			if err := m.Remove(changedName(pos.File)); err != nil {
				t.Fatal(err)
			}
			for i := range 10 {
				mustNote(t, m, testID(10+i))
			}
		},
		"cut short": func(m *vfs.Mem, pos ChangePos) {
			b, _ := vfs.ReadFile(m, changedName(pos.File))
			vfs.WriteFileAtomic(m, changedName(pos.File), b[:pos.Off-5])
		},
		"a line that does not decode": func(m *vfs.Mem, pos ChangePos) {
			appendSynced(m, changedName(pos.File), []byte("{garbage\n"))
			mustNote(t, m, testID(3))
		},
	}
	for name, spoil := range cases {
		m, pos := setup()
		spoil(m, pos)
		if seen, _, err := readChanged(m, pos); !errors.Is(err, errLostRecord) {
			t.Errorf("%s: read %v, %v; want the record said lost", name, seen, err)
		}
	}
	m, _ := setup()
	if _, _, err := readChanged(m, ChangePos{}); !errors.Is(err, errLostRecord) {
		t.Errorf("a read from no position: %v", err)
	}
}

// TestChangedRotationLosesNoLine: once the last file passed its bound, a
// read starts a new file; a line an appender wrote to the old file after
// the new one was made reaches the new one too, lines written meanwhile
// to the old one are read, and the files two back go.
func TestChangedRotationLosesNoLine(t *testing.T) {
	m := vfs.NewMem()
	start, _ := changedEnd(m)
	pad := bytes.Repeat([]byte(fmt.Sprintf(`{"ws":%q,"id":%q}`+"\n", testWS, testID(0))), changedRotate/40)
	if err := appendSynced(m, changedName(start.File), pad); err != nil {
		t.Fatal(err)
	}
	seen, pos := mustRead(t, m, start)
	if len(seen) != 1 {
		t.Fatalf("read %v", seen)
	}
	// A line written after the read, before the new file.
	mustNote(t, m, testID(1))
	pos, err := rotateChanged(m, pos, seen)
	if err != nil {
		t.Fatal(err)
	}
	if pos.File != start.File+1 || pos.Off != 0 || seen[testID(1)] == "" {
		t.Fatalf("after the rotation at %+v: %v", pos, seen)
	}
	// An appender that found the old file the highest before the new one
	// was made writes there after it was read the last time.
	line := []byte(fmt.Sprintf(`{"ws":%q,"id":%q}`+"\n", testWS, testID(2)))
	if err := noteFrom(m, start.File, line); err != nil {
		t.Fatal(err)
	}
	mustNote(t, m, testID(3))
	seen, pos2 := mustRead(t, m, pos)
	if seen[testID(2)] == "" || seen[testID(3)] == "" || len(seen) != 2 {
		t.Fatalf("read from the new file %v", seen)
	}
	// The next rotation removes the first file.
	appendSynced(m, changedName(pos2.File), pad)
	_, pos3 := mustRead(t, m, pos2)
	if _, err := rotateChanged(m, pos3, map[string]string{}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Stat(changedName(start.File)); !vfs.IsNotExist(err) {
		t.Errorf("the file two rotations back is still there: %v", err)
	}
}

// TestChangedCrashAtEverySyncPoint: a note is stopped at each of its sync
// points and the power lost there, every unsynced change surviving or not
// at random. A note that returned is read from the position before it, or
// the record is said lost (a full listing): never a record that reads
// without it. The same holds of the next note after the crash.
func TestChangedCrashAtEverySyncPoint(t *testing.T) {
	for _, fresh := range []bool{true, false} { // an empty record, or one with a line
		for stop := 0; ; stop++ {
			done := false
			for seed := range uint64(8) {
				m := vfs.NewMem()
				start, _ := changedEnd(m)
				if !fresh {
					mustNote(t, m, testID(9))
					_, start = mustRead(t, m, start)
				}
				m.FailAfterSyncs(stop)
				err := NoteChanged(m, testWS, testID(1))
				m.CrashPartial(rand.New(rand.NewPCG(seed, uint64(stop))))
				if err == nil {
					done = true
				}
				where := fmt.Sprintf("fresh %v stop %d seed %d", fresh, stop, seed)
				seen, _, rerr := readChanged(m, start)
				if err == nil && rerr == nil && seen[testID(1)] == "" {
					t.Fatalf("%s: a note that returned was lost: read %v", where, seen)
				}
				if rerr != nil && !errors.Is(rerr, errLostRecord) {
					t.Fatalf("%s: %v", where, rerr)
				}
				mustNote(t, m, testID(2))
				seen, _, rerr = readChanged(m, start)
				if rerr == nil && seen[testID(2)] == "" {
					t.Fatalf("%s: the note after the crash was lost: read %v", where, seen)
				}
			}
			if done {
				break
			}
		}
	}
}
