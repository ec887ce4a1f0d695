package reliability

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"cairn/engine"
	"cairn/internal/vfs"
	"cairn/objects"
)

const payloadEnv = "CAIRN_PAYLOAD_WORKER"

// payloadWorker appends, in a session of its own, an answer read from the
// file CAIRN_PAYLOAD_TEXT (large enough to be stored as an object), closes
// the session and prints its id.
func payloadWorker() int {
	ctx := context.Background()
	text, err := os.ReadFile(os.Getenv("CAIRN_PAYLOAD_TEXT"))
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	store, err := engine.Open(os.Getenv("CAIRN_SOAK_HOME"))
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	defer store.Close()
	ws, err := store.Workspace(os.Getenv("CAIRN_SOAK_PROJECT"))
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	s := ws.Create(engine.SessionOptions{})
	for _, it := range []engine.Item{{Type: engine.User, Text: "ask"}, {Type: engine.Assistant, Text: string(text)}} {
		if _, err := s.Append(ctx, it); err != nil {
			fmt.Println("error", err)
			return 1
		}
	}
	if err := s.Close(); err != nil {
		fmt.Println("error", err)
		return 1
	}
	fmt.Println(s.ID())
	return 0
}

// renameHook runs before ahead of each Rename of the FS it wraps.
type renameHook struct {
	vfs.FS
	before func(newname string)
}

func (h *renameHook) Rename(oldname, newname string) error {
	h.before(newname)
	return h.FS.Rename(oldname, newname)
}

// TestFailedFolderSyncKeepsAnotherProcessesObject: this process stores an
// answer as an object; after it has found the object absent and before its
// rename, another process stores the same answer in a session of its own
// and closes it, its journal naming the object. This process's folder sync
// then fails. The object the other process's journal names must still be
// there: its session reads whole and fsck finds nothing wrong.
func TestFailedFolderSyncKeepsAnotherProcessesObject(t *testing.T) {
	ctx := context.Background()
	home := filepath.Join(t.TempDir(), "home")
	project := t.TempDir()
	made, err := engine.Open(home) // the state folder and its FORMAT file
	if err != nil {
		t.Fatal(err)
	}
	made.Close()
	text := strings.Repeat("the same long answer ", 2000)
	textFile := filepath.Join(t.TempDir(), "text")
	if err := os.WriteFile(textFile, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	oid := objects.Sum([]byte(text)).String()

	d, err := vfs.OpenDisk(home)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	faulty := vfs.NewFaulty(d)
	other, otherOut := "", ""
	h := &renameHook{FS: faulty, before: func(newname string) {
		if other != "" || otherOut != "" || !strings.Contains(newname, "/objects/"+oid[:2]+"/"+oid[2:]) {
			return
		}
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), payloadEnv+"=1", "CAIRN_SOAK_HOME="+home, "CAIRN_SOAK_PROJECT="+project,
			"CAIRN_PAYLOAD_TEXT="+textFile)
		out, err := cmd.Output()
		otherOut = strings.TrimSpace(string(out))
		if err == nil {
			other = otherOut
		}
		faulty.Inject(vfs.Rule{Op: vfs.OpSync, Path: "workspaces/*/objects/" + oid[:2], Count: 1})
	}}
	store, err := engine.OpenFS(h, home)
	if err != nil {
		t.Fatal(err)
	}
	ws, err := store.Workspace(project)
	if err != nil {
		t.Fatal(err)
	}
	s := ws.Create(engine.SessionOptions{})
	if _, err := s.Append(ctx, engine.Item{Type: engine.User, Text: "ask"}); err != nil {
		t.Fatal(err)
	}
	_, err = s.Append(ctx, engine.Item{Type: engine.Assistant, Text: text})
	if other == "" {
		t.Fatalf("the other process: %q", otherOut)
	}
	if !errors.Is(err, syscall.EIO) {
		t.Fatalf("this process's Append: %v, want EIO from the folder sync", err)
	}
	s.Close()

	check, err := engine.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	defer check.Close()
	cws, err := check.Workspace(project)
	if err != nil {
		t.Fatal(err)
	}
	v, err := cws.Read(ctx, other)
	if err != nil {
		t.Fatal(err)
	}
	tr := v.Transcript()
	if last := tr[len(tr)-1]; last.Text != text || last.Unavailable != nil {
		t.Fatalf("the other process's answer: %d bytes, unavailable %v", len(last.Text), last.Unavailable)
	}
	rep, err := check.Fsck(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) != 0 {
		t.Fatalf("fsck: %+v", rep.Problems)
	}
}
