package importer

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"
)

// GenerateClaudeCode writes a synthetic Claude Code session of about size
// bytes to w, for benchmarks: the shapes of real transcripts (prompts,
// assistant messages split one block a line with thinking, text and
// tool_use, progress lines between a call and its result, tool results of
// a few KiB, file-history snapshots), seeded so a run is repeatable.
func GenerateClaudeCode(w io.Writer, seed uint64, size int64, sessionID, cwd string) error {
	return GenerateClaudeCodeScaled(w, seed, size, sessionID, cwd, 1)
}

// GenerateClaudeCodeScaled is GenerateClaudeCode with tool results scale
// times as long: fewer items to the megabyte, as in transcripts of tools
// that read whole files.
func GenerateClaudeCodeScaled(w io.Writer, seed uint64, size int64, sessionID, cwd string, scale int) error {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	bw := bufio.NewWriterSize(w, 1<<20)
	t := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	var written int64
	n := 0
	parent := ""
	line := func(m map[string]any) error {
		n++
		t = t.Add(time.Duration(r.IntN(3000)) * time.Millisecond)
		uuid := fmt.Sprintf("%08x-0000-4000-8000-%012x", seed&0xffffffff, n)
		m["uuid"], m["sessionId"], m["cwd"], m["timestamp"], m["version"] = uuid, sessionID, cwd, t.Format(time.RFC3339Nano), "2.1.39"
		if parent == "" {
			m["parentUuid"] = nil
		} else {
			m["parentUuid"] = parent
		}
		parent = uuid
		b, err := json.Marshal(m)
		if err != nil {
			return err
		}
		written += int64(len(b)) + 1
		bw.Write(b)
		return bw.WriteByte('\n')
	}
	words := strings.Fields("the a file test build error fix function value return package import struct field line read write open close index session journal object store path folder change record undo redo")
	text := func(nw int) string {
		var b strings.Builder
		for i := range nw {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[r.IntN(len(words))])
		}
		return b.String()
	}
	for turn := 0; written < size; turn++ {
		if err := line(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": text(8 + r.IntN(40))}}); err != nil {
			return err
		}
		msg := fmt.Sprintf("msg_%d_%d", seed, turn)
		usage := map[string]any{"input_tokens": 3, "cache_read_input_tokens": 20000 + r.IntN(10000), "output_tokens": 50 + r.IntN(500)}
		asst := func(block map[string]any) error {
			return line(map[string]any{"type": "assistant", "requestId": "req_" + msg, "message": map[string]any{
				"id": msg, "model": "claude-opus-4-6", "role": "assistant", "content": []any{block}, "usage": usage}})
		}
		if err := asst(map[string]any{"type": "thinking", "thinking": text(20 + r.IntN(80)), "signature": "sig"}); err != nil {
			return err
		}
		if err := asst(map[string]any{"type": "text", "text": text(10 + r.IntN(60))}); err != nil {
			return err
		}
		for c := range 1 + r.IntN(4) {
			id := fmt.Sprintf("toolu_%d_%d_%d", seed, turn, c)
			if err := asst(map[string]any{"type": "tool_use", "id": id, "name": "Bash", "input": map[string]any{"command": text(4)}}); err != nil {
				return err
			}
			for range r.IntN(6) {
				if err := line(map[string]any{"type": "progress", "toolUseID": id, "data": map[string]any{"type": "bash_progress", "output": text(10)}}); err != nil {
					return err
				}
			}
			out := text(scale * (100 + r.IntN(600)))
			if err := line(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{
				map[string]any{"type": "tool_result", "tool_use_id": id, "content": out}}}, "toolUseResult": map[string]any{"stdout": out}}); err != nil {
				return err
			}
		}
		if turn%5 == 0 {
			n++
			b, _ := json.Marshal(map[string]any{"type": "file-history-snapshot", "messageId": msg, "snapshot": map[string]any{"trackedFileBackups": map[string]any{}}})
			written += int64(len(b)) + 1
			bw.Write(b)
			bw.WriteByte('\n')
		}
	}
	return bw.Flush()
}
