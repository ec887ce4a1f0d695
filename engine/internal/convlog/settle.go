package convlog

import (
	"encoding/json"
	"os"

	"cairn/internal/vfs"
	"cairn/journal"
)

// Settling the turns a crash may have left unsynced (the engine's
// turn_settle.go says when): the turn lines of the items journal are
// matched against the trail's and the usage ledger's lines, and those
// lacking are written again by the caller.
//
// A line counts for a turn when its number and its time match: a line of
// a turn whose own line a crash lost (never acknowledged) does not stand
// for the later turn that took its number.

// turnKey names a turn's line in the trail or the ledger.
type turnKey struct {
	n  int
	at int64 // Unix milliseconds
}

func keyOf(r TurnRec) turnKey { return turnKey{r.Turn.N, r.At.UnixMilli()} }

// Unsettled is the turns of log after turn settled, and whether any of them
// spent (its usage line goes to the ledger).
func Unsettled(log []TurnRec, settled int) (recs []TurnRec, usage bool) {
	for _, r := range log {
		if r.Turn.N > settled {
			recs = append(recs, r)
			usage = usage || r.Turn.Usage
		}
	}
	return recs, usage
}

// NotInTrail is recs less those whose turn line the trail name holds. A
// trail that does not exist holds none.
func NotInTrail(fsys vfs.FS, name string, recs []TurnRec) ([]TurnRec, error) {
	in := map[turnKey]bool{}
	_, err := journal.Read(fsys, name, func(b []byte) error {
		var l struct {
			Kind string `json:"kind"`
			At   Time   `json:"at"`
			Turn int    `json:"turn"`
		}
		if json.Unmarshal(b, &l) == nil && l.Kind == "turn" {
			in[turnKey{l.Turn, l.At.UnixMilli()}] = true
		}
		return nil
	})
	if err != nil && !vfs.IsNotExist(err) {
		return nil, err
	}
	var out []TurnRec
	for _, r := range recs {
		if !in[keyOf(r)] {
			out = append(out, r)
		}
	}
	return out, nil
}

// NotInLedger is the recs marked "usage" whose usage line, of session,
// the ledger name lacks. A ledger that does not exist holds none.
func NotInLedger(fsys vfs.FS, name, session string, recs []TurnRec) ([]TurnRec, error) {
	in := map[turnKey]bool{}
	_, err := journal.Read(fsys, name, func(b []byte) error {
		var u struct {
			Kind    string `json:"kind"`
			At      Time   `json:"at"`
			Session string `json:"session"`
			Turn    int    `json:"turn"`
		}
		if json.Unmarshal(b, &u) == nil && u.Kind == "usage" && u.Session == session && u.Turn > 0 {
			in[turnKey{u.Turn, u.At.UnixMilli()}] = true
		}
		return nil
	})
	if err != nil && !vfs.IsNotExist(err) {
		return nil, err
	}
	var out []TurnRec
	for _, r := range recs {
		if r.Turn.Usage && !in[keyOf(r)] {
			out = append(out, r)
		}
	}
	return out, nil
}

// SyncFile makes every line of file name durable, whoever wrote it. A file
// that does not exist needs nothing.
func SyncFile(fsys vfs.FS, name string) error {
	f, err := fsys.OpenFile(name, os.O_RDONLY, 0)
	if vfs.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
