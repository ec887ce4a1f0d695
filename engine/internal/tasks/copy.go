package tasks

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"path"
	"slices"

	"cairn/internal/timefmt"
	"cairn/internal/vfs"
	"cairn/journal"
)

// Copy gives the task folder to the tasks of recs (the records of the
// task folder from) reachable from a fork point: those with a call
// onPath. Each keeps its id, its record lines up to the first
// continuation the path does not keep, and its transcript up to where
// that continuation began (the "from" of its continue line); payloads and
// attachments are objects the workspace shares, named, never stored
// again. A task still running in the parent is interrupted in the child,
// at now: nothing runs it there. The transcripts are written before the
// records that name them, both before the child's items journal (the
// caller's). It returns the ids copied and the tool outputs the copied
// transcripts refer to, which the caller copies with those of the kept
// path.
func Copy(ctx context.Context, fsys vfs.FS, recs []*Record, from, to string, onPath map[string]bool, now timefmt.Time) (copied, outputs []string, err error) {
	var out [][]byte
	for _, r := range recs {
		if !slices.ContainsFunc(r.Calls, func(c string) bool { return onPath[c] }) {
			continue
		}
		// The lines of the calls kept: stop at the first continuation
		// off the path (the start is kept whatever: later calls build on it).
		limit, calls := -1, 0
		var lines [][]byte
		for _, b := range r.raw {
			var l Line
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
			var last Line
			json.Unmarshal(lines[len(lines)-1], &last)
			if last.Kind == "end" {
				state = last.State
			}
		}
		if state == "" || state == Running {
			end, _ := json.Marshal(Line{V: 1, Kind: "end", Task: r.ID, State: Interrupted, At: now})
			lines = append(lines, end)
		}
		if r.Type == TypeAgent {
			outs, err := copyTranscript(ctx, fsys, from, to, r.ID, limit)
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
	err = vfs.WriteAtomic(fsys, path.Join(to, RecordsFile), func(wr io.Writer) error {
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

// copyTranscript copies the complete lines of task's transcript in task
// folder from into task folder to, up to its limit-th item line (all of
// them when limit < 0), and returns the tool outputs the copied items
// refer to.
func copyTranscript(ctx context.Context, fsys vfs.FS, from, to, task string, limit int) ([]string, error) {
	if err := mkdir(fsys, to); err != nil {
		return nil, err
	}
	var outputs []string
	err := vfs.WriteAtomic(fsys, path.Join(to, task+TranscriptSuffix), func(wr io.Writer) error {
		outputs = outputs[:0] // a retried write reads the transcript again
		bw := bufio.NewWriterSize(wr, 256<<10)
		items := 0
		_, err := journal.Read(fsys, path.Join(from, task+TranscriptSuffix), func(b []byte) error {
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

func (stopCopy) Error() string { return "tasks: copy stopped at its limit" }
