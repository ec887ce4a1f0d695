package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cairnRun runs the cairn command in dir with state folder home.
func cairnRun(t *testing.T, home, dir string, args ...string) (int, []byte, string) {
	t.Helper()
	var o, e bytes.Buffer
	code := Main(context.Background(), append([]string{"--home", home, "-C", dir}, args...), strings.NewReader(""), &o, &e)
	return code, o.Bytes(), e.String()
}

// An attachment of any bytes (escape sequences, NULs, invalid UTF-8)
// comes back from `cairn attachment` exactly as attached: through the
// prompt and through a fork's draft.
func TestAttachmentBytesRoundTrip(t *testing.T) {
	home, dir := filepath.Join(t.TempDir(), "home"), t.TempDir()
	r := rand.New(rand.NewPCG(7, 7))
	data := []byte("\x1b[2J\x00\r\n\xff\xfe")
	for range 300 << 10 {
		data = append(data, byte(r.Uint32()))
	}
	file := filepath.Join(t.TempDir(), "dump.bin")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs := cairnRun(t, home, dir, "--json", "prompt", "--new", "--attach", file, "look at this dump")
	if code != 0 {
		t.Fatalf("prompt: %d %s", code, errs)
	}
	var ans struct{ Session, Item string }
	json.Unmarshal(out, &ans)
	if code, out, errs = cairnRun(t, home, dir, "attachment", ans.Session, ans.Item); code != 0 || !bytes.Equal(out, data) {
		t.Fatalf("attachment: %d, %d bytes back of %d: %s", code, len(out), len(data), errs)
	}
	code, out, errs = cairnRun(t, home, dir, "--json", "fork", ans.Session, "--at", "1")
	if code != 0 {
		t.Fatalf("fork: %d %s", code, errs)
	}
	var fork struct{ Session string }
	json.Unmarshal(out, &fork)
	if code, out, errs = cairnRun(t, home, dir, "attachment", fork.Session, "draft"); code != 0 || !bytes.Equal(out, data) {
		t.Fatalf("the draft's attachment: %d, %d bytes back of %d: %s", code, len(out), len(data), errs)
	}
}

// Over storage.max_attachment_mb, `cairn prompt --attach` is refused (bad
// input, exit 2), naming the cap, and writes nothing.
func TestPromptAttachOverCap(t *testing.T) {
	home, dir := filepath.Join(t.TempDir(), "home"), t.TempDir()
	if code, _, errs := cairnRun(t, home, dir, "prompt", "--new", "first"); code != 0 {
		t.Fatal(errs)
	}
	if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(`{"storage":{"max_attachment_mb":1}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(t.TempDir(), "big.bin")
	if err := os.WriteFile(big, make([]byte, 1<<20+1), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errs := cairnRun(t, home, dir, "prompt", "--attach", big, "too big")
	if code != ExitUsage || !strings.Contains(errs, "over the 1 MB cap (storage.max_attachment_mb") {
		t.Fatalf("prompt over the cap: %d %q", code, errs)
	}
	code, out, _ := cairnRun(t, home, dir, "sessions")
	if code != 0 || !strings.Contains(string(out), "1 item ") {
		t.Fatalf("the refused prompt was appended: %s", out)
	}
	objs, _ := filepath.Glob(filepath.Join(home, "workspaces", "*", "objects", "*", "*"))
	if len(objs) != 0 {
		t.Fatalf("the refused attachment left objects: %v", objs)
	}
}

// A corrupt attachment writes nothing: `cairn attachment` checks the bytes
// against the object's name before the first byte reaches stdout, so a
// script that ignores the exit code keeps no corrupt file. For an object
// stored as it is and one stored compressed.
func TestAttachmentCorruptWritesNothing(t *testing.T) {
	home, dir := filepath.Join(t.TempDir(), "home"), t.TempDir()
	r := rand.New(rand.NewPCG(8, 8))
	random := make([]byte, 300<<10)
	for i := range random {
		random[i] = byte(r.Uint32())
	}
	text := bytes.Repeat([]byte("the same line again and again\n"), 10000)
	for name, data := range map[string][]byte{"random.bin": random, "text.txt": text} {
		file := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(file, data, 0o600); err != nil {
			t.Fatal(err)
		}
		code, out, errs := cairnRun(t, home, dir, "--json", "prompt", "--new", "--attach", file, "look at "+name)
		if code != 0 {
			t.Fatalf("prompt: %d %s", code, errs)
		}
		var ans struct{ Session, Item string }
		json.Unmarshal(out, &ans)
		code, out, errs = cairnRun(t, home, dir, "--json", "attachment", "--list", ans.Session, ans.Item)
		var list []struct{ OID string }
		if code != 0 || json.Unmarshal(out, &list) != nil || len(list) != 1 {
			t.Fatalf("attachment --list: %d %s %s", code, out, errs)
		}
		objs, _ := filepath.Glob(filepath.Join(home, "workspaces", "*", "objects", list[0].OID[:2], list[0].OID[2:]+"*"))
		if len(objs) != 1 {
			t.Fatalf("the object of %s: %v", name, objs)
		}
		b, err := os.ReadFile(objs[0])
		if err != nil {
			t.Fatal(err)
		}
		b[len(b)/2] ^= 0x55
		if err := os.WriteFile(objs[0], b, 0o600); err != nil {
			t.Fatal(err)
		}
		code, out, errs = cairnRun(t, home, dir, "attachment", ans.Session, ans.Item)
		if code != ExitFailed || len(out) != 0 || !strings.Contains(errs, "attachment 1 of item") {
			t.Errorf("%s, corrupt: exit %d, %d bytes on stdout, stderr %q; want exit 1, nothing written, an error naming it", name, code, len(out), errs)
		}
	}
}
