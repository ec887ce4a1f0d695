package prune

import (
	"encoding/json"
	"fmt"
	"time"

	"cairn/engine/internal/layout"
	"cairn/internal/timefmt"
	"cairn/internal/vfs"
)

// The sweep runs retention in the background of an open REPL: trim, forget,
// then prune. One sweep runs at a time across processes (SweepLock, held
// with flock for the sweep); SweepFile at the top of the state folder,
//
//	{"v":1,"at":T}
//
// (part of the format) says when the last one finished, so that starting
// a REPL does not sweep each time. It is written when a sweep ends, so a
// sweep cut short is run again by the next REPL; every step of it is
// idempotent.
const (
	SweepFile = layout.SweepFile
	SweepLock = layout.SweepLock
)

type sweepMark struct {
	V  int          `json:"v"`
	At timefmt.Time `json:"at"`
}

// LastSweep says when the last sweep finished, and whether one did.
func LastSweep(fsys vfs.FS) (time.Time, bool) {
	b, err := vfs.ReadFile(fsys, SweepFile)
	if err != nil {
		return time.Time{}, false
	}
	var v sweepMark
	if json.Unmarshal(b, &v) != nil || v.V != 1 {
		return time.Time{}, false
	}
	return v.At.Time, true
}

// MarkSwept writes that a sweep finished at now.
func MarkSwept(fsys vfs.FS, now time.Time) error {
	b, _ := json.Marshal(sweepMark{1, timefmt.Mk(now)})
	if err := vfs.WriteFileAtomic(fsys, SweepFile, append(b, '\n')); err != nil {
		return fmt.Errorf("engine: sweep: %w", err)
	}
	return nil
}
