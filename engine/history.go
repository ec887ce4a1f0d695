package engine

import (
	"encoding/json"
	"fmt"
	"strings"

	"cairn/internal/vfs"
	"cairn/journal"
)

// Prompt history, history.jsonl at the top of the state folder, shared by
// every directory: one line per prompt, oldest first. Consecutive duplicates
// collapse into one; a cancelled prompt is removed again; the file is capped
// (history.max in config.json, default 1000) and rewritten whole, by atomic
// rename, when it grows past the cap by a tenth. A corrupt file reads as
// empty history, never as an error.

const historyName = "history.jsonl"

type historyLine struct {
	V    int    `json:"v"`
	Kind string `json:"kind"`
	At   Time   `json:"at"`
	Text string `json:"text"`
	Path string `json:"path,omitempty"`
}

// History is the prompt history, oldest first. A corrupt or missing file
// gives an empty history.
func (s *Store) History() []string {
	out := s.historyAll()
	if max := s.historyMax(); len(out) > max {
		out = out[len(out)-max:]
	}
	return out
}

// historyAll is every entry the file holds, before the cap.
func (s *Store) historyAll() []string {
	var out []string
	_, err := journal.Read(s.fsys, historyName, func(b []byte) error {
		var l historyLine
		if json.Unmarshal(b, &l) != nil || l.V != 1 {
			return nil
		}
		switch l.Kind {
		case "prompt":
			if len(out) == 0 || out[len(out)-1] != l.Text {
				out = append(out, l.Text)
			}
		case "cancel":
			if len(out) > 0 && out[len(out)-1] == l.Text {
				out = out[:len(out)-1]
			}
		}
		return nil
	})
	if err != nil {
		return nil
	}
	return out
}

func (s *Store) historyMax() int {
	if c, err := s.Config(); err == nil && c.History.Max > 0 {
		return c.History.Max
	}
	return defaultHistoryMax
}

// AddHistory records a submitted prompt. An empty prompt, or one equal to
// the newest entry, adds nothing.
func (s *Store) AddHistory(text, dir string) error {
	if strings.TrimSpace(text) == "" {
		return nil
	}
	h := s.historyAll()
	if len(h) > 0 && h[len(h)-1] == text {
		return nil
	}
	if err := s.appendHistory(historyLine{V: 1, Kind: "prompt", At: mkTime(s.Now()), Text: text, Path: dir}); err != nil {
		return err
	}
	if max := s.historyMax(); len(h)+1 > max+max/10 {
		return s.rewriteHistory(append(h, text)[len(h)+1-max:])
	}
	return nil
}

// CancelHistory removes a cancelled prompt again (when it is the newest entry).
func (s *Store) CancelHistory(text string) error {
	h := s.History()
	if len(h) == 0 || h[len(h)-1] != text {
		return nil
	}
	return s.appendHistory(historyLine{V: 1, Kind: "cancel", At: mkTime(s.Now()), Text: text})
}

// ClearHistory empties the prompt history.
func (s *Store) ClearHistory() error { return s.rewriteHistory(nil) }

func (s *Store) appendHistory(l historyLine) error {
	w, _, err := journal.OpenWriter(s.fsys, historyName, journal.Options{Sync: journal.SyncEvery, Now: s.now})
	if err != nil {
		return fmt.Errorf("engine: history: %w", err)
	}
	defer w.Close()
	return w.Append(l)
}

func (s *Store) rewriteHistory(texts []string) error {
	var b strings.Builder
	now := mkTime(s.Now())
	for _, t := range texts {
		line, _ := json.Marshal(historyLine{V: 1, Kind: "prompt", At: now, Text: t})
		b.Write(line)
		b.WriteByte('\n')
	}
	return vfs.WriteFileAtomic(s.fsys, historyName, []byte(b.String()))
}
