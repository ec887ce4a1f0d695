package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"cairn/internal/vfs"
	"cairn/journal"
)

// B4 appends one durable turn to a session's items journal: a prompt, an
// assistant item and a tool result, three lines and one sync. The floor is
// one write of the same bytes and one fsync.
func init() { register(Case{Name: "B4", Run: runB4}) }

// b4Item is an items line as engine/doc.go draws it.
type b4Item struct {
	V      int     `json:"v"`
	Kind   string  `json:"kind"`
	ID     string  `json:"id"`
	Parent *string `json:"parent"`
	Type   string  `json:"type"`
	At     string  `json:"at"`
	Text   string  `json:"text"`
}

// b4Turns makes n turns of three items each, texts of about 200 B, 1 KB and
// 4 KB from a fixed seed.
func b4Turns(n int) [][]b4Item {
	r := rand.New(rand.NewPCG(4, 4))
	words := strings.Fields(`the a test file func return error value session journal line append
		fix failing build check path read write sync item head tool result output diff patch
		go package import struct field type string int nil err if for range main`)
	text := func(size int) string {
		var b strings.Builder
		for b.Len() < size {
			b.WriteString(words[r.IntN(len(words))])
			if r.IntN(12) == 0 {
				b.WriteString(".\n")
			} else {
				b.WriteByte(' ')
			}
		}
		return b.String()
	}
	at := time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC)
	turns := make([][]b4Item, n)
	prev := ""
	for i := range turns {
		for j, k := range []struct {
			typ  string
			size int
		}{{"user", 80}, {"assistant", 850}, {"tool_result", 3700}} {
			id := fmt.Sprintf("i-%08x", r.Uint32())
			var parent *string
			if prev != "" {
				p := prev
				parent = &p
			}
			at = at.Add(time.Duration(1+j) * 1234 * time.Millisecond)
			turns[i] = append(turns[i], b4Item{V: 1, Kind: "item", ID: id, Parent: parent,
				Type: k.typ, At: at.Format(journal.TimeLayout), Text: text(k.size)})
			prev = id
		}
	}
	return turns
}

func runB4(env *Env) ([]Row, error) {
	n := 200
	if env.Quick {
		n = 50
	}
	const warm = 5
	turns := b4Turns(n + warm)

	// The floor's bytes: the same lines, encoded beforehand.
	floorBytes := make([][]byte, len(turns))
	lineBytes := 0
	for i, t := range turns {
		var b []byte
		for _, it := range t {
			l, err := b4Line(it)
			if err != nil {
				return nil, err
			}
			b = append(b, l...)
		}
		floorBytes[i] = b
		lineBytes += len(b)
	}

	d, err := vfs.OpenDisk(env.Dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	w, _, err := journal.OpenWriter(d, "b4.items.jsonl", journal.Options{Sync: journal.SyncManual})
	if err != nil {
		return nil, err
	}
	defer w.Close()
	floor, err := os.OpenFile(filepath.Join(env.Dir, "floor.jsonl"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	defer floor.Close()

	cairnTurn := func(t []b4Item) error {
		for _, it := range t {
			if err := w.Append(it); err != nil {
				return err
			}
		}
		return w.Sync()
	}
	floorTurn := func(b []byte) error {
		if _, err := floor.Write(b); err != nil {
			return err
		}
		return floor.Sync()
	}

	// Interleave the two, taking turns at going first, so both see the same
	// disk weather; the first few turns warm up and are not counted.
	var cairnMS, floorMS []float64
	peak, err := peakHeap(func() error {
		for i := range turns {
			var c, f float64
			cairn := func() (err error) { c, err = b4Timed(func() error { return cairnTurn(turns[i]) }); return }
			anchor := func() (err error) { f, err = b4Timed(func() error { return floorTurn(floorBytes[i]) }); return }
			first, second := cairn, anchor
			if i%2 == 1 {
				first, second = anchor, cairn
			}
			if err := first(); err != nil {
				return err
			}
			if err := second(); err != nil {
				return err
			}
			if i >= warm {
				cairnMS, floorMS = append(cairnMS, c), append(floorMS, f)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if w.Size() != int64(lineBytes) {
		return nil, fmt.Errorf("journal holds %d bytes, want %d", w.Size(), lineBytes)
	}
	size := fmt.Sprintf("%d turns x 3 lines, %.1f KB/turn", n, float64(lineBytes)/float64(len(turns))/1000)
	return []Row{row("B4", size, b4Median(cairnMS), "floor", b4Median(floorMS), "<=1.3",
		func(r float64) bool { return r <= 1.3 }, peak)}, nil
}

// b4Line is what Append writes for v: json.Marshal's bytes and "\n".
func b4Line(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	return append(b, '\n'), err
}

// b4Timed returns the wall time of fn in milliseconds.
func b4Timed(fn func() error) (float64, error) {
	start := time.Now()
	err := fn()
	return float64(time.Since(start).Nanoseconds()) / 1e6, err
}

// b4Median is the median of ds.
func b4Median(ds []float64) float64 {
	ds = slices.Clone(ds)
	slices.Sort(ds)
	return ds[len(ds)/2]
}
