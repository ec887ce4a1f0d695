package engine

import (
	"context"
	"errors"
	"fmt"

	"cairn/engine/internal/convlog"
	"cairn/engine/internal/titles"
	"cairn/internal/usermsg"
	"cairn/internal/vfs"
	"cairn/journal"
)

// Writing a session's items journal: the session's files made on its first
// item worth keeping (materialize), one line appended per item (writeLine),
// and the lines a degraded session keeps until it can write them
// (keepLine, degrade.go).

// materialize writes the session's files the first time it holds something:
// the workspace folder, the lock, and the items journal with its session line
// and first (the line that makes the session worth keeping, when there is
// one). The journal appears whole, by one rename (journal.Create), so a
// session exists with its first lines or not at all; a failure leaves
// nothing behind, its lock file included.
func (s *Session) materialize(first ...*itemLine) error {
	if s.recorded {
		return nil
	}
	w := s.ws
	if err := w.ensure(); err != nil {
		return err
	}
	l, err := w.acquireAs(s.st.ID, s.opts.Brief)
	if err != nil {
		return err
	}
	leased, err := w.lease(context.Background(), s.st.ID, l, s.opts.Notice) // remote.go
	if err != nil {
		w.release(s.st.ID, l)
		return err
	}
	l = leased
	if _, err := w.s.fsys.Lstat(itemsName(w.dir, s.st.ID)); s.mustBeNew && !vfs.IsNotExist(err) {
		w.releaseKeepingHint(s.st.ID, l)
		return errCreated // never replaced: its maker wrote it whole
	}
	now := mkTime(w.s.Now())
	lines := []any{&itemLine{V: 1, Kind: kindSession, Session: s.st.ID, Path: w.path, At: &now, ForkOf: s.st.ForkOf, Build: Version, Branch: s.st.Branch}}
	for _, f := range first {
		lines = append(lines, f)
	}
	wr, err := journal.Create(w.s.fsys, itemsName(w.dir, s.st.ID), lines, journal.Options{Sync: journal.SyncManual, Now: w.s.now})
	if err != nil {
		// Whether or not the journal got its name, the session is not
		// there: no one else knows its id, so nothing of it is kept.
		w.s.fsys.Remove(itemsName(w.dir, s.st.ID))
		w.release(s.st.ID, l)
		w.s.fsys.Remove(lockName(w.dir, s.st.ID))
		return fmt.Errorf("engine: create session %s: %w", s.st.ID, err)
	}
	s.lock, s.items, s.recorded = l, wr, true
	// journal.Create synced the lines it was given: they are durable.
	s.kept.Items.Durable(wr.Size())
	if len(first) == 0 {
		s.bareSize = wr.Size()
	}
	s.st.Created = now // not opened: no open line (its fold says so too)
	s.st.Touch(now)
	// A new session is an open of the workspace too: it collects what the
	// writes of dead owners left (temps.go), as Open does.
	w.removeTemps(s.st.ID, false, nil)
	return nil
}

// writeLine appends one line to the items journal, creating the session's
// files first when needed. In Degrade mode a failure turns the session
// unrecorded (said once) and is not returned: the line is kept, and
// written, after the ones kept before it, once the session can be
// recorded again.
func (s *Session) writeLine(ctx context.Context, l *itemLine) error {
	if s.closed {
		return fmt.Errorf("engine: session %s is closed", s.st.ID)
	}
	if s.changesOnly {
		return errChangesOnly
	}
	s.retry(ctx)
	if s.unrecorded != nil {
		s.kept.Items.Waiting = append(s.kept.Items.Waiting, l)
		return nil
	}
	var err error
	if !s.recorded {
		err = s.materialize(l)
	} else {
		err = s.appendItem(l)
	}
	if err != nil && s.opts.Degrade {
		s.kept.Items.Waiting = append(s.kept.Items.Waiting, l)
	}
	return s.degrade(err)
}

// keepLine keeps l to be written once the session is recorded again.
func (s *Session) keepLine(ctx context.Context, l *itemLine) error {
	if s.closed {
		return fmt.Errorf("engine: session %s is closed", s.st.ID)
	}
	s.kept.Items.Waiting = append(s.kept.Items.Waiting, l)
	return nil
}

// degrade applies the Degrade option to a write error.
func (s *Session) degrade(err error) error {
	if err == nil {
		return nil
	}
	var busy *BusyError
	if !s.opts.Degrade || errors.As(err, &busy) {
		return err
	}
	s.unrecorded = err
	s.noticef("this session cannot be recorded for now (%v); it goes on unrecorded, "+
		"keeps what it could not write, and writes it once it can", err)
	return nil
}

func (s *Session) notice(msg string) {
	if s.opts.Notice != nil {
		s.opts.Notice(msg)
	}
}

// noticef is notice of fmt.Sprintf(format, a...), with each error among a
// in the words a person reads of it (internal/usermsg): a notice is
// text by the time it reaches the printer, which can no longer tell the
// error's parts.
func (s *Session) noticef(format string, a ...any) {
	s.notice(fmt.Sprintf(format, userWords(a)...))
}

// userWords is a, the arguments of a message for a person, with each
// error in the words a person reads of it (internal/usermsg).
func userWords(a []any) []any {
	for i, v := range a {
		if err, ok := v.(error); ok {
			a[i] = usermsg.Error(err)
		}
	}
	return a
}

// add is Append with s.mu held; it.Task may be set (StartTask).
func (s *Session) add(ctx context.Context, it Item) (Item, error) {
	if !it.Type.Valid() {
		return Item{}, fmt.Errorf("%w: item type %q", ErrBadInput, it.Type)
	}
	if it.Parent == "" {
		it.Parent = s.st.Head
	} else if s.st.Item(it.Parent) == nil {
		return Item{}, noItem(it.Parent, s.st.ID)
	}
	if err := s.st.CheckLinks(&it); err != nil {
		return Item{}, err
	}
	if it.Quarantined {
		it.Text, it.Attachments = "", nil // quarantined content is never written
	}
	if it.ID == "" {
		it.ID = newItemID()
	}
	it.At = mkTime(s.ws.s.Now())
	if err := s.readyForItem(ctx); err != nil {
		return Item{}, err
	}
	atts, err := s.ws.storeAttachments(ctx, it.Attachments)
	if err != nil {
		return Item{}, err
	}
	it.Attachments = atts
	l := convlog.LineOf(it)
	l.Text, l.Attachments = nil, convlog.OnDisk(atts)
	switch {
	case it.Quarantined:
		// only the slot name is written
	case len(it.Text) > payloadInline && s.unrecorded == nil:
		p, err := convlog.WritePayload(ctx, s.ws.objects(), it.Text)
		if err = s.degrade(err); err != nil {
			return Item{}, err
		}
		l.Payload = p
	default:
		l.Text = &it.Text
	}
	write := s.writeLine
	if l.Payload == nil && l.Text == nil && !it.Quarantined {
		// Its payload could not be stored: the line is kept, text
		// inline, and written with a payload once the session is
		// recorded again; it is not tried again at once.
		l.Text = &it.Text
		write = s.keepLine
	}
	if err := write(ctx, l); err != nil {
		return Item{}, err
	}
	s.st.Fold(convlog.LineOf(it)) // live-only bytes stay in memory
	s.warnNearCeiling()
	if it.Type == User && s.st.TitleSource == "" {
		t := titles.FromPrompt(it.Text)
		if err := s.writeLine(ctx, &itemLine{V: 1, Kind: kindTitle, Title: t, Source: "prompt", At: &it.At}); err != nil {
			return Item{}, err
		}
		s.st.Title, s.st.TitleSource = t, "prompt"
	}
	return it, nil
}

// readyForItem makes the workspace folder before an item's payload object is
// stored there. The session's own files are made with the item's line. An
// unrecorded session tries to be recorded again first.
func (s *Session) readyForItem(ctx context.Context) error {
	s.retry(ctx)
	if s.recorded || s.unrecorded != nil {
		return nil
	}
	return s.degrade(s.ws.ensure())
}

// materializeForItem creates the session's files before something of its own
// is written beside them (a change record, a tool output, shell history). An
// unrecorded session tries to be recorded again first.
func (s *Session) materializeForItem(ctx context.Context) error {
	s.retry(ctx)
	if s.recorded || s.unrecorded != nil {
		return nil
	}
	return s.degrade(s.materialize())
}

// writableBeside says why nothing can be written beside the session's
// journals now (a tool output, shell history, task records), or makes the
// session's files and returns nil: it is closed, or cannot be recorded
// (Degrade mode after a failure, or open read-only). s.mu is held.
func (s *Session) writableBeside(ctx context.Context) error {
	if s.closed {
		return fmt.Errorf("engine: session %s is closed", s.st.ID)
	}
	if err := s.materializeForItem(ctx); err != nil {
		return err
	}
	if s.unrecorded != nil {
		return fmt.Errorf("engine: session %s is not recorded: %w", s.st.ID, s.unrecorded)
	}
	return nil
}
