package engine

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"cairn/internal/vfs"
)

var taskMB = flag.Int("task-mb", 1024, "MB of sub-agent transcripts BenchmarkResumeWithTaskTranscripts writes")

// BenchmarkResumeWithTaskTranscripts opens (resumes) and closes one
// session of 2,000 items, first alone, then with -task-mb (1 GB by
// default) of sub-agent transcripts beside it, then with them moved away:
// the last two times should be the same, since an open reads no
// transcript. It fails if the open opens any file of the tasks folder.
// The 1 GB is written only when the benchmark runs:
//
//	go test ./engine -run '^$' -bench ResumeWithTaskTranscripts -benchtime 20x
func BenchmarkResumeWithTaskTranscripts(b *testing.B) {
	ctx := context.Background()
	home := filepath.Join(b.TempDir(), "home")
	must(Open(home))(b).Close()
	disk := must(vfs.OpenDisk(home))(b)
	defer disk.Close()
	spy := &openSpy{FS: disk}
	st := must(OpenFS(spy, home))(b)
	defer st.Close()
	ws := must(st.Workspace(b.TempDir()))(b)
	s := ws.Create(SessionOptions{})
	for i := range 1000 {
		must(s.Append(ctx, Item{Type: User, Text: fmt.Sprintf("prompt %d", i)}))(b)
		must(s.Append(ctx, Item{Type: Assistant, Text: strings.Repeat("an answer ", 50)}))(b)
	}
	id := s.ID()
	must(0, s.Close())(b)
	resume := func(b *testing.B) {
		spy.taken()
		for b.Loop() {
			r := must(ws.Open(ctx, id, SessionOptions{}))(b)
			must(0, r.Close())(b)
		}
		if got := spy.taken(); len(got) != 0 {
			b.Fatalf("the open opened files of the tasks folder: %v", got[:min(len(got), 5)])
		}
	}
	b.Run("without", resume)

	// The transcripts: eight tasks, their items just under the inline cap.
	s = must(ws.Open(ctx, id, SessionOptions{}))(b)
	text := strings.Repeat("sub-agent output ", (payloadInline-64)/17)
	var written int64
	for k := 0; written < int64(*taskMB)<<20; k++ {
		t, call, err := s.StartTask(ctx, TaskStart{Description: fmt.Sprintf("task %d", k)})
		if err != nil {
			b.Fatal(err)
		}
		for n := int64(0); n < int64(*taskMB)<<17 && written < int64(*taskMB)<<20; n += int64(len(text)) {
			must(t.Append(ctx, Item{Type: Assistant, Text: text}))(b)
			written += int64(len(text))
		}
		must(s.Append(ctx, Item{Type: ToolResult, Call: call.ID, Text: "done"}))(b)
	}
	must(0, s.Close())(b)
	b.Logf("sub-agent transcripts: %d MB in %d tasks", written>>20, len(must(ws.Tasks(ctx, id))(b)))
	b.Run("with-transcripts", resume)
	// The same session with its transcripts moved away: what is left of
	// any difference is the transcripts' (none is expected).
	must(0, disk.Rename(taskDir(ws.dir, id), taskDir(ws.dir, id)+".away"))(b)
	b.Run("transcripts-moved-away", resume)
}
