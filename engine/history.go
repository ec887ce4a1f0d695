package engine

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"cairn/internal/vfs"
	"cairn/journal"
)

// Prompt history, history.jsonl at the top of the state folder, shared by
// every directory: one line per prompt, oldest first. Consecutive duplicates
// collapse into one; a cancelled prompt is removed again; the file is capped
// (history.max in config.json, default 1000) and rewritten whole, by atomic
// rename, when it grows past the cap by a tenth. A corrupt file reads as
// empty history, never as an error. Part of the format:
//
//	{"v":1,"kind":"prompt","at":T,"text":PROMPT,"path":DIR}
//	{"v":1,"kind":"cancel","at":T,"text":PROMPT}
//
// "path" is the directory the prompt was typed in (absent when unknown). A
// "cancel" line takes back the newest prompt when its text is PROMPT.

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

// historyTail is what AddHistory needs of the file — how many entries it
// holds and the newest — and the file's size when it was read, so a prompt
// does not read the whole file again: a file of another size (another
// process appended, or rewrote it) is read again.
type historyTail struct {
	mu    sync.Mutex
	size  int64 // -1: not read yet
	count int
	last  string
}

// tail returns the count and newest entry of the history file, read again
// only when its size is not the one last seen.
func (s *Store) historyTail() (count int, last string) {
	fi, err := s.fsys.Stat(historyName)
	size := int64(0)
	if err == nil {
		size = fi.Size()
	}
	if s.hist.size == size && size > 0 {
		return s.hist.count, s.hist.last
	}
	h := s.historyAll()
	s.hist.size, s.hist.count, s.hist.last = size, len(h), ""
	if len(h) > 0 {
		s.hist.last = h[len(h)-1]
	}
	return s.hist.count, s.hist.last
}

// AddHistory records a submitted prompt. An empty prompt, or one equal to
// the newest entry, adds nothing.
func (s *Store) AddHistory(text, dir string) error {
	if strings.TrimSpace(text) == "" {
		return nil
	}
	s.hist.mu.Lock()
	defer s.hist.mu.Unlock()
	count, last := s.historyTail()
	if count > 0 && last == text {
		return nil
	}
	s.hist.size = -1 // unknown until the append is done
	size, err := s.appendHistory(historyLine{V: 1, Kind: "prompt", At: mkTime(s.Now()), Text: text, Path: dir})
	if err != nil {
		return err
	}
	if limit := s.historyMax(); count+1 > limit+limit/10 {
		h := s.historyAll()
		return s.rewriteHistory(h[max(len(h)-limit, 0):])
	}
	s.hist.size, s.hist.count, s.hist.last = size, count+1, text
	return nil
}

// CancelHistory removes a cancelled prompt again (when it is the newest entry).
func (s *Store) CancelHistory(text string) error {
	h := s.History()
	if len(h) == 0 || h[len(h)-1] != text {
		return nil
	}
	s.hist.mu.Lock()
	defer s.hist.mu.Unlock()
	s.hist.size = -1
	_, err := s.appendHistory(historyLine{V: 1, Kind: "cancel", At: mkTime(s.Now()), Text: text})
	return err
}

// ClearHistory empties the prompt history.
func (s *Store) ClearHistory() error {
	s.hist.mu.Lock()
	defer s.hist.mu.Unlock()
	s.hist.size = -1
	return s.rewriteHistory(nil)
}

// appendHistory appends l and returns the file's size after it.
func (s *Store) appendHistory(l historyLine) (int64, error) {
	w, _, err := journal.OpenWriter(s.fsys, historyName, journal.Options{Sync: journal.SyncEvery, Now: s.now})
	if err != nil {
		return 0, fmt.Errorf("engine: history: %w", err)
	}
	defer w.Close()
	if err := w.Append(l); err != nil {
		return 0, err
	}
	return w.Size(), nil
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
