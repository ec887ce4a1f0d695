package engine

import (
	"context"
	"fmt"
	"path/filepath"

	"cairn/engine/internal/changes"

	"cairn/engine/internal/fstate"
	"cairn/engine/internal/snapshot"
)

// Capturing pre-images, for the file tools and Session.Change alike: each
// file's state before the change, stored as an object or inline, and the
// required ones that could not be captured, which refuse the change with
// an evidence line and an audit event.

// preImages captures the pre-images of one change (snapshot.PreImages)
// for session s, which records a refusal.
type preImages struct {
	*snapshot.PreImages
	s *Session
}

// newPreImages readies the capture of a change's pre-images under the
// snapshot settings sc: stored as objects, or small ones inline (the file
// tools, whose change line is durable before they write).
func (s *Session) newPreImages(ctx context.Context, sc SnapshotsConfig, inline bool) *preImages {
	p := &preImages{s: s, PreImages: &snapshot.PreImages{MaxFile: sc.MaxFileBytes, On: sc.Enabled && !s.opts.NoSnapshots,
		Required: func(rel string) bool { return sc.Requires(rel, filepath.ToSlash(s.ws.absPath(rel))) }}}
	s.fileToolMarks(ctx) // where the session's records reach back (callrec.go)
	if !p.On {
		return p
	}
	if p.StoreErr = s.snapReady(ctx); p.StoreErr == nil {
		p.Objs = s.snapObjects()
		p.Put = fstate.StoreSink(ctx, p.Objs)
		if inline {
			p.Put = fstate.InlineSink(ctx, p.Objs)
		}
	}
	return p
}

// refuse records and returns the refusal of a change that required
// pre-images it could not capture, if any.
func (p *preImages) refuse(ctx context.Context, tool string) error {
	if len(p.Denied) == 0 {
		return nil
	}
	p.s.denyRequired(ctx, tool, p.Denied, p.Objs != nil)
	return &RequiredError{Tool: tool, Files: p.Denied}
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
func (s *Session) denyRequired(ctx context.Context, tool string, denied []requiredFile, journal bool) {
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
