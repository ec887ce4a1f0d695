package engine

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"cairn/engine/internal/attach"
	"cairn/engine/internal/convlog"
	"cairn/objects"
)

// Attachments: a file a person pastes into a prompt is kept with it, as an
// object of the workspace's store (package attach, which draws the lines).

// Attachment is a file attached to an item (convlog.Attachment).
type Attachment = convlog.Attachment

// AttachmentTooLargeError refuses an attachment over storage.max_attachment_mb.
type AttachmentTooLargeError = attach.TooLargeError

// maxAttachmentMB is storage.max_attachment_mb, or its default when
// config.json cannot be read (the session refuses nothing else for it).
func (s *Store) maxAttachmentMB() int {
	if c, err := s.Config(); err == nil && c.Storage.MaxAttachmentMB > 0 {
		return c.Storage.MaxAttachmentMB
	}
	return DefaultMaxAttachmentMB
}

// MediaType is the media type of a file named name whose content starts
// with head: by its extension when known, else by sniffing the content.
func MediaType(name string, head []byte) string { return attach.MediaType(name, head) }

// PutAttachment stores r, a file named name, as a durable object of the
// workspace and returns the attachment naming it; over the cap it stores
// nothing (*AttachmentTooLargeError).
func (w *Workspace) PutAttachment(ctx context.Context, name string, r io.Reader) (Attachment, error) {
	name = filepath.Base(name)
	if name == "" || name == "." || name == "/" {
		return Attachment{}, fmt.Errorf("%w: an attachment needs a file name", ErrBadInput)
	}
	if err := w.ensure(); err != nil {
		return Attachment{}, err
	}
	return attach.Put(ctx, w.objects(), name, r, w.s.maxAttachmentMB())
}

// storeAttachments makes the attachments of an item being appended ready
// for its line (attach.Prepare).
func (w *Workspace) storeAttachments(ctx context.Context, in []Attachment) ([]Attachment, error) {
	return attach.Prepare(ctx, w.objects(), w.ensure, w.s.maxAttachmentMB(), in)
}

// DraftItem names the draft in ReadAttachment: the attachments a fork or
// revert handed back with a prompt.
const DraftItem = "draft"

// Attachments are the attachments of item (DraftItem for the draft's) of
// session, as their lines say; a live-only one has no Data here.
func (w *Workspace) Attachments(ctx context.Context, session, item string) ([]Attachment, error) {
	v, err := w.ReadLean(ctx, session)
	if err != nil {
		return nil, err
	}
	if item == DraftItem {
		if v.st.Draft == nil {
			return nil, notFoundf("session %s holds no draft", session)
		}
		return convlog.OnDisk(v.st.Draft.Attachments), nil
	}
	it := v.st.Item(item)
	if it == nil {
		return nil, noItem(item, session)
	}
	return convlog.OnDisk(it.Attachments), nil
}

// ReadAttachment opens attachment n (from 1) of item (DraftItem: the
// draft's) of session, verified as it is read; a live-only one is
// ErrNotFound.
func (w *Workspace) ReadAttachment(ctx context.Context, session, item string, n int) (Attachment, io.ReadCloser, error) {
	as, err := w.Attachments(ctx, session, item)
	if err != nil {
		return Attachment{}, nil, err
	}
	if n < 1 || n > len(as) {
		return Attachment{}, nil, notFoundf("item %s of session %s has %d attachment(s), not %d", item, session, len(as), n)
	}
	a := as[n-1]
	if a.LiveOnly {
		return a, nil, notFoundf("attachment %d of item %s is live-only: its bytes were never saved %s", n, item, a.Note())
	}
	id, err := objects.ParseID(a.OID)
	if err != nil {
		return a, nil, fmt.Errorf("%w: attachment %d of item %s: %v", ErrBadInput, n, item, err)
	}
	if err := w.objects().Verify(ctx, id); err != nil {
		return a, nil, fmt.Errorf("engine: attachment %d of item %s: %w", n, item, err)
	}
	rc, err := w.objects().Get(ctx, id)
	if err != nil {
		return a, nil, fmt.Errorf("engine: attachment %d of item %s: %w", n, item, err)
	}
	return a, rc, nil
}
