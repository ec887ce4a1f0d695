package convlog

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"cairn/internal/vfs"
)

// The record (<id>.json) is derived from the journals and written whole
// (doc.go draws it). WriteRecord writes it; Degraded keeps what Degrade
// mode could not write.

// WriteRecord writes r, indented, as file name: durably (an atomic
// replace that survives a crash) or, without durable, for readers only (a
// crash may leave the old record or an unreadable one, which the engine
// rebuilds from the journal).
func WriteRecord(fsys vfs.FS, name string, r any, durable bool) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	write := vfs.ReplaceFile
	if durable {
		write = vfs.WriteFileAtomic
	}
	if err := write(fsys, name, append(b, '\n')); err != nil {
		return fmt.Errorf("engine: write record: %w", err)
	}
	return nil
}

// Syncer is a journal that can be made durable.
type Syncer interface{ Sync() error }

// SyncAll syncs every journal at once and returns the first error.
func SyncAll(js []Syncer) error {
	if len(js) == 1 {
		return js[0].Sync()
	}
	errs := make([]error, len(js))
	var wg sync.WaitGroup
	for i, j := range js {
		wg.Go(func() { errs[i] = j.Sync() })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Degraded is what a session in Degrade mode keeps to be recorded again:
// the lines of its items journal and of its trail (of line type A).
type Degraded[A any] struct {
	Items  Kept[*Line]
	Audit  Kept[A]
	Caught int // kept items written since the session was unrecorded
}

// Lost is how many items an unrecorded session holds that may not be on
// disk: not written, or written since its last good sync.
func (d *Degraded[A]) Lost() int { return countItems(d.Items.Waiting) + countItems(d.Items.Written) }

func countItems(ls []*Line) int {
	n := 0
	for _, l := range ls {
		if l.Kind == KindItem {
			n++
		}
	}
	return n
}

// CountText is "1 item" or "N items".
func CountText(n int) string {
	if n == 1 {
		return "1 item"
	}
	return fmt.Sprintf("%d items", n)
}

// Turn is what the runtime reports at the end of a turn. Nil fields leave
// the session's standing state as it was.
type Turn struct {
	Plan            json.RawMessage // the plan the turn worked to
	Model           string
	Spend           Spend    // this turn's spend; the record keeps the sum
	Trust           *Trust   // the trust map after the turn
	AllowedCommands []string // commands the user said to stop asking about
	Branch          string   // the branch the turn ran on ("" = ask git)
	// Labels and Gates go to the audit trail: names only, never content.
	Labels []string
	Gates  []string
}

// ResumeInfo says what changed since the session last ran.
type ResumeInfo struct {
	BranchBefore, Branch string // differ when the branch changed
	BuildBefore, Build   string // differ when another build wrote the session
	AskTrust             bool   // the record predates trust maps: ask the trust question again
	Repaired             int64  // bytes cut from a torn journal tail
}
