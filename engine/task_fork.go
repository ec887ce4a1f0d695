package engine

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"slices"

	"cairn/internal/vfs"
	"cairn/journal"
)

// copyTasks gives fork child the sub-agent tasks reachable from its fork
// point: those with a call on the kept path. Each keeps its id, its record
// lines up to the first continuation the path does not keep, and its
// transcript up to where that continuation began (the "from" of its
// continue line); payloads and attachments are objects the workspace
// shares, named, never stored again. A task still running in the parent
// is interrupted in the child: nothing runs it there. The transcripts are
// written before the records that name them, both before the child's
// items journal (the caller's). It returns the ids copied and the tool
// outputs the copied transcripts refer to, which the caller copies with
// those of the kept path.
func (w *Workspace) copyTasks(ctx context.Context, parent, child string, keep []*Item) (copied, outputs []string, err error) {
	onPath := map[string]bool{}
	for _, it := range keep {
		if it.Task != "" {
			onPath[it.ID] = true
		}
	}
	if len(onPath) == 0 {
		return nil, nil, nil
	}
	recs, err := w.taskRecords(parent)
	if err != nil {
		return nil, nil, err
	}
	var out [][]byte
	now := mkTime(w.s.Now())
	for _, r := range recs {
		if !slices.ContainsFunc(r.Calls, func(c string) bool { return onPath[c] }) {
			continue
		}
		// The lines of the calls kept: stop at the first continuation
		// off the path (the start is kept whatever: later calls build on it).
		limit, calls := -1, 0
		var lines [][]byte
		for _, b := range r.raw {
			var l taskLine
			json.Unmarshal(b, &l)
			if l.Kind == "continue" {
				if !onPath[l.Call] {
					limit = r.froms[calls] // this continuation is call number calls (the start is 0)
					break
				}
			}
			if l.Kind == "start" || l.Kind == "continue" {
				calls++
			}
			lines = append(lines, b)
		}
		state := r.State
		if limit >= 0 {
			state = "" // the kept calls' state is in their lines
			var last taskLine
			json.Unmarshal(lines[len(lines)-1], &last)
			if last.Kind == "end" {
				state = last.State
			}
		}
		if state == "" || state == TaskRunning {
			end, _ := json.Marshal(taskLine{V: 1, Kind: "end", Task: r.ID, State: TaskInterrupted, At: now})
			lines = append(lines, end)
		}
		if r.Type == TaskTypeAgent {
			outs, err := w.copyTranscript(ctx, parent, child, r.ID, limit)
			if err != nil {
				return nil, nil, err
			}
			outputs = append(outputs, outs...)
		}
		out = append(out, lines...)
		copied = append(copied, r.ID)
	}
	if len(out) == 0 {
		return nil, nil, nil
	}
	err = vfs.WriteAtomic(w.s.fsys, taskRecordsName(w.dir, child), func(wr io.Writer) error {
		bw := bufio.NewWriter(wr)
		for _, l := range out {
			bw.Write(l)
			bw.WriteByte('\n')
		}
		return bw.Flush()
	})
	if err != nil {
		return nil, nil, err
	}
	return copied, outputs, nil
}

// copyTranscript copies the complete lines of task's transcript of
// session from into session to, up to its limit-th item line (all of them
// when limit < 0), and returns the tool outputs the copied items refer to.
func (w *Workspace) copyTranscript(ctx context.Context, from, to, task string, limit int) ([]string, error) {
	fsys := w.s.fsys
	if err := ensureDir(fsys, taskDir(w.dir, to)); err != nil {
		return nil, err
	}
	var outputs []string
	err := vfs.WriteAtomic(fsys, taskItemsName(w.dir, to, task), func(wr io.Writer) error {
		outputs = outputs[:0] // a retried write reads the transcript again
		bw := bufio.NewWriterSize(wr, 256<<10)
		items := 0
		_, err := journal.Read(fsys, taskItemsName(w.dir, from, task), func(b []byte) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			var l struct {
				Kind    string   `json:"kind"`
				Outputs []string `json:"outputs"`
			}
			if json.Unmarshal(b, &l) == nil && l.Kind == kindItem {
				if limit >= 0 && items >= limit {
					return stopCopy{}
				}
				items++
				outputs = append(outputs, l.Outputs...)
			}
			bw.Write(b)
			return bw.WriteByte('\n')
		})
		if err != nil && !errors.As(err, new(stopCopy)) && !vfs.IsNotExist(err) {
			return err
		}
		return bw.Flush()
	})
	return outputs, err
}

// stopCopy ends copyTranscript's read at its limit.
type stopCopy struct{}

func (stopCopy) Error() string { return "engine: copy stopped at its limit" }
