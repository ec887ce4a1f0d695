package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"cairn/internal/timefmt"
	"cairn/internal/vfs"
)

// KindRepair is the "kind" of the line a Writer appends after cutting a torn
// tail. Part of the format.
const KindRepair = "repair"

// TimeLayout is the format of times in journal lines: RFC 3339 in UTC with
// milliseconds (2026-11-29T09:12:03.120Z). Part of the format.
const TimeLayout = timefmt.Layout

// Repair says what OpenWriter cut from the end of a journal.
type Repair struct {
	// Cut is the number of bytes of the torn tail; zero when there was none.
	Cut int64
}

// repairLine is the line recording a cut torn tail.
type repairLine struct {
	V    int    `json:"v"`
	Kind string `json:"kind"`
	At   string `json:"at"`
	Cut  int64  `json:"cut"`
}

// repair finds the end of the last complete line, and when a torn tail
// follows it, truncates the file there, syncs it, appends the repair line and
// syncs again. It leaves w.size at the end of the file.
func (w *Writer) repair() (Repair, error) {
	fi, err := w.f.Stat()
	if err != nil {
		return Repair{}, err
	}
	size := fi.Size()
	end, err := lastLineEnd(w.f, size)
	if err != nil {
		return Repair{}, fmt.Errorf("journal: open %s: %w", w.name, err)
	}
	w.size = end
	// Write where the file ends, also on an FS without O_APPEND.
	if _, err := w.f.Seek(end, io.SeekStart); err != nil {
		return Repair{}, err
	}
	if end == size {
		return Repair{}, nil
	}
	cut := size - end
	if err := w.f.Truncate(end); err != nil {
		return Repair{}, fmt.Errorf("journal: cut torn tail of %s: %w", w.name, err)
	}
	if err := w.f.Sync(); err != nil {
		return Repair{}, fmt.Errorf("journal: cut torn tail of %s: %w", w.name, err)
	}
	line := repairLine{V: 1, Kind: KindRepair, At: w.opt.Now().UTC().Format(TimeLayout), Cut: cut}
	b, err := json.Marshal(line)
	if err != nil {
		return Repair{}, err
	}
	if err := w.write(append(b, '\n')); err != nil {
		return Repair{}, err
	}
	if err := w.sync(); err != nil {
		return Repair{}, err
	}
	return Repair{Cut: cut}, nil
}

// lastLineEnd returns the offset just after the last "\n" of the first size
// bytes of f (0 when there is none), reading backwards in blocks.
func lastLineEnd(f vfs.File, size int64) (int64, error) {
	const block = 64 << 10
	buf := make([]byte, min(size, block))
	for hi := size; hi > 0; {
		lo := max(hi-block, 0)
		b := buf[:hi-lo]
		if _, err := f.ReadAt(b, lo); err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			return lo + int64(i) + 1, nil
		}
		hi = lo
	}
	return 0, nil
}
