package engine

import (
	"context"
	"fmt"

	"cairn/engine/internal/changes"

	"cairn/engine/internal/fstate"
	"cairn/internal/vfs"
	"cairn/objects"
)

// Capturing pre-images, for the file tools and Session.Change alike: each
// file's state before the change, stored as an object or inline, and the
// required ones that could not be captured, which refuse the change with
// an evidence line and an audit event.

// preImages captures the pre-images of one change and collects the files
// it skipped and the required ones it could not capture.
type preImages struct {
	s        *Session
	sc       SnapshotsConfig
	on       bool           // snapshots on
	objs     *objects.Store // nil when the store cannot be used
	storeErr error          // why not
	putErr   error          // why the last pre-image was not stored
	put      fstate.Sink
	skipped  []string
	denied   []RequiredFile
	// check, when set, sees a file's content and mode as it is captured,
	// before it is stored; its error (checkErr) stops the capture.
	check    func(data []byte, mode string) error
	checkErr error
}

// newPreImages readies the capture of a change's pre-images under the
// snapshot settings sc: stored as objects, or small ones inline (the file
// tools, whose change line is durable before they write).
func (s *Session) newPreImages(ctx context.Context, sc SnapshotsConfig, inline bool) *preImages {
	p := &preImages{s: s, sc: sc, on: sc.Enabled && !s.opts.NoSnapshots}
	s.fileToolMarks(ctx) // where the session's records reach back (callrec.go)
	if !p.on {
		return p
	}
	if p.storeErr = s.snapReady(ctx); p.storeErr == nil {
		p.objs = s.snapObjects()
		p.put = fstate.StoreSink(ctx, p.objs)
		if inline {
			p.put = fstate.InlineSink(ctx, p.objs)
		}
	}
	return p
}

// capture records the pre-image of rel and returns its change file. With
// snapshots off nothing is read, but a required file that exists is denied.
func (p *preImages) capture(ctx context.Context, fsys vfs.FS, rel string) changes.FileChange {
	f := changes.FileChange{Path: rel}
	req := p.s.ws.required(p.sc, rel)
	if !p.on {
		if _, err := fsys.Lstat(rel); req && !vfs.IsNotExist(err) {
			p.denied = append(p.denied, RequiredFile{Path: rel, Reason: "snapshots are off"})
		}
		return f
	}
	put := p.put
	if put != nil && p.check != nil {
		put = func(b []byte, mode string) (*fstate.State, error) {
			if p.checkErr = p.check(b, mode); p.checkErr != nil {
				return nil, p.checkErr
			}
			return p.put(b, mode)
		}
	}
	ref, cerr := fstate.Capture(ctx, fsys, put, rel, p.sc.MaxFileBytes)
	f.Before = ref
	if ref.IsSkipped() && ref.Skipped == fstate.SkipStore {
		p.putErr = cerr
		if p.storeErr != nil {
			p.putErr = p.storeErr
		}
	}
	if ref.IsSkipped() {
		p.skipped = append(p.skipped, rel)
		if req {
			reason := ref.Skipped
			switch {
			case ref.Skipped == fstate.SkipTooLarge:
				reason = fmt.Sprintf("too large: %d bytes, max_file_bytes is %d", ref.Size, p.sc.MaxFileBytes)
			case p.storeErr != nil:
				reason += ": " + p.storeErr.Error()
			case cerr != nil:
				reason += ": " + cerr.Error()
			}
			p.denied = append(p.denied, RequiredFile{Path: rel, Reason: reason})
		}
	}
	return f
}

// refuse records and returns the refusal of a change that required
// pre-images it could not capture, if any.
func (p *preImages) refuse(ctx context.Context, tool string) error {
	if len(p.denied) == 0 {
		return nil
	}
	p.s.denyRequired(ctx, tool, p.denied, p.objs != nil)
	return &RequiredError{Tool: tool, Files: p.denied}
}

// snapReady makes sure the session's files exist, so objects and the
// changes journal can be written; it fails when the session is unrecorded.
func (s *Session) snapReady(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
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

// denyRequired records a required-snapshot refusal: an evidence line in the
// changes journal (when it can be written) and a snapshot.required audit
// event with outcome denied.
func (s *Session) denyRequired(ctx context.Context, tool string, denied []RequiredFile, journal bool) {
	if journal {
		files := make([]changes.DeniedFile, len(denied))
		for i, d := range denied {
			files[i] = changes.DeniedFile(d)
		}
		ev := changes.EvidenceLine{V: 1, Kind: changes.KindEvidence, At: mkTime(s.ws.s.Now()), Tool: tool, Signal: "permission",
			Decision: "deny", Rule: "snapshots.required", Files: files}
		if err := s.writeChanges(synced, ev); err != nil {
			s.noticef("the refusal could not be recorded: %v", err)
		}
	}
	if err := s.recordEvent(ctx, auditEvent{Event: "snapshot.required", Outcome: "denied", Action: tool,
		Rule: "snapshots.required", Files: len(denied)}); err != nil {
		s.noticef("the refusal could not be audited: %v", err)
	}
}
