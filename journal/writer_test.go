package journal

import (
	"errors"
	"strings"
	"testing"

	"cairn/internal/vfs"
)

func TestRoundTrip(t *testing.T) {
	filesystems(t, func(t *testing.T, fsys vfs.FS) {
		if err := fsys.MkdirAll("sessions", vfs.DirPerm); err != nil {
			t.Fatal(err)
		}
		const name = "sessions/a.items.jsonl"
		w, rep, err := OpenWriter(fsys, name, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Cut != 0 {
			t.Fatalf("new journal: Repair = %+v", rep)
		}
		fi, err := fsys.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != vfs.FilePerm {
			t.Fatalf("mode %v, want %v", fi.Mode().Perm(), vfs.FilePerm)
		}
		texts := []string{"hi", "line\nwith \"quotes\" and \x00", "<html>&", strings.Repeat("é", 5000), ""}
		var want []string
		var size int64
		for i, s := range texts {
			it := newItem(i, s)
			if err := w.Append(it); err != nil {
				t.Fatal(err)
			}
			want = append(want, marshal(t, it))
			size += int64(len(want[len(want)-1]) + 1)
			if w.Size() != size {
				t.Fatalf("Size = %d, want %d", w.Size(), size)
			}
		}
		raw := `{"v":1,"kind":"head","to":"i-2","why":"revert"}`
		if err := w.AppendLine([]byte(raw)); err != nil {
			t.Fatal(err)
		}
		want = append(want, raw)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := w.Append(newItem(9, "x")); !errors.Is(err, ErrClosed) {
			t.Fatalf("Append after Close: %v", err)
		}
		got, st := readAll(t, fsys, name)
		equalLines(t, got, want)
		if st.Torn != 0 || len(st.Bad) != 0 || st.End != int64(len(fileBytes(t, fsys, name))) {
			t.Fatalf("Stats = %+v", st)
		}
		if want := strings.Join(want, "\n") + "\n"; string(fileBytes(t, fsys, name)) != want {
			t.Fatalf("file holds %q", fileBytes(t, fsys, name))
		}

		// Reopen: no repair, appends go after the old lines.
		w, rep, err = OpenWriter(fsys, name, Options{Sync: SyncManual})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Cut != 0 || w.Size() != st.End {
			t.Fatalf("reopen: Repair %+v, Size %d, want 0, %d", rep, w.Size(), st.End)
		}
		it := newItem(7, "again")
		if err := w.Append(it); err != nil {
			t.Fatal(err)
		}
		if err := w.Sync(); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		got, _ = readAll(t, fsys, name)
		equalLines(t, got, append(want, marshal(t, it)))

		// ReadFrom an offset reads the lines after it, with file offsets.
		var tail []string
		st2, err := ReadFrom(fsys, name, st.End, func(l []byte) error { tail = append(tail, string(l)); return nil })
		if err != nil {
			t.Fatal(err)
		}
		equalLines(t, tail, []string{marshal(t, it)})
		if st2.End != st.End+int64(len(tail[0])+1) {
			t.Fatalf("ReadFrom End = %d", st2.End)
		}
	})
}

func TestReadMissing(t *testing.T) {
	filesystems(t, func(t *testing.T, fsys vfs.FS) {
		_, err := Read(fsys, "nope.jsonl", func([]byte) error { return nil })
		if !vfs.IsNotExist(err) {
			t.Fatalf("Read of a missing journal: %v", err)
		}
	})
}

func TestRefusedLines(t *testing.T) {
	fsys := vfs.NewMem()
	w, _, err := OpenWriter(fsys, "j.jsonl", Options{MaxLine: 64})
	if err != nil {
		t.Fatal(err)
	}
	ok := `{"v":1,"n":1}`
	if err := w.AppendLine([]byte(ok)); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		line string
		want error
	}{
		{`{"v":1,` + "\n" + `"n":2}`, ErrBadLine},
		{`{"v":1}` + "\n", ErrBadLine},
		{`{"v":1`, ErrBadLine},
		{`[1,2]`, ErrBadLine},
		{`"text"`, ErrBadLine},
		{``, ErrBadLine},
		{`{"v":1,"s":"` + strings.Repeat("x", 60) + `"}`, ErrLineTooLong},
	}
	for _, c := range cases {
		if err := w.AppendLine([]byte(c.line)); !errors.Is(err, c.want) {
			t.Errorf("AppendLine(%q) = %v, want %v", c.line, err, c.want)
		}
	}
	if err := w.Append(map[string]string{"s": strings.Repeat("x", 60)}); !errors.Is(err, ErrLineTooLong) {
		t.Errorf("Append of a long line = %v", err)
	}
	if err := w.Append([]int{1}); !errors.Is(err, ErrBadLine) {
		t.Errorf("Append of an array = %v", err)
	}
	if err := w.Append(func() {}); err == nil || errors.Is(err, ErrBroken) {
		t.Errorf("Append of a func = %v", err)
	}
	// A line exactly at the cap is fine, and refusals did not break the writer.
	exact := `{"s":"` + strings.Repeat("y", 64-8) + `"}`
	if len(exact) != 64 {
		t.Fatal(len(exact))
	}
	if err := w.AppendLine([]byte(exact)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, _ := readAll(t, fsys, "j.jsonl")
	equalLines(t, got, []string{ok, exact})
}

func TestCloseSyncsManual(t *testing.T) {
	m := vfs.NewMem()
	w, _, err := OpenWriter(m, "j.jsonl", Options{Sync: SyncManual})
	if err != nil {
		t.Fatal(err)
	}
	it := newItem(0, "kept by Close")
	if err := w.Append(it); err != nil {
		t.Fatal(err)
	}
	syncs := m.Syncs()
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := w.Sync(); err != nil { // nothing new: no fsync
		t.Fatal(err)
	}
	if m.Syncs() != syncs+1 {
		t.Fatalf("two Syncs over one append made %d fsyncs", m.Syncs()-syncs)
	}
	it2 := newItem(1, "synced by Close")
	if err := w.Append(it2); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	m.Crash()
	got, _ := readAll(t, m, "j.jsonl")
	equalLines(t, got, []string{marshal(t, it), marshal(t, it2)})
}

// selfEncoded is a line that encodes itself, or leaves it to encoding/json.
type selfEncoded struct {
	S    string `json:"s"`
	Self bool   `json:"-"`
}

func (l selfEncoded) AppendJSON(b []byte) ([]byte, bool) {
	if !l.Self {
		return b, false
	}
	return append(b, `{"s":"by hand: `+l.S+`"}`...), true
}

// An Appender's bytes are the line, checked as any line; one that declines
// is encoded by encoding/json.
func TestAppendAppender(t *testing.T) {
	fsys := vfs.NewMem()
	w, _, err := OpenWriter(fsys, "j.jsonl", Options{MaxLine: 64})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []selfEncoded{{S: "a", Self: true}, {S: "b"}} {
		if err := w.Append(l); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Append(selfEncoded{S: strings.Repeat("x", 60), Self: true}); !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("an Appender's long line: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, _ := readAll(t, fsys, "j.jsonl")
	equalLines(t, got, []string{`{"s":"by hand: a"}`, `{"s":"b"}`})
}
