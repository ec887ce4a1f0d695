package engine

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"path/filepath"
	"strings"

	"cairn/engine/internal/convlog"
	"cairn/objects"
)

// Attachments: a file a person pastes into a prompt (a screenshot, a log)
// is part of their message and is kept with it. Its bytes are stored as an
// object in the workspace's store, and the item's line names it. Part of
// the format:
//
//	{"v":1,"kind":"item",...,"attachments":[{"oid":SHA256,"name":"shot.png","media_type":"image/png","size":N}]}
//	{"v":1,"kind":"item",...,"attachments":[{"name":"paper.pdf","media_type":"application/pdf","live_only":true,"url":U,"pages":N}]}
//
// The second is live-only (a PDF a fetch attached for the live session):
// the line keeps its URL, file name and page count, never its bytes. The
// session that appended it holds the bytes in memory (Attachment.Data);
// a resumed or forked session has none, and the runtime sends Note in
// their place (Attachment.Gone). A fork at a prompt hands its
// attachments back with its text, in the child's draft (draft.go), by
// reference: an object is stored once per workspace and shared.
//
// An attachment that cannot be stored (a full disk) refuses its item, in
// Degrade mode too: a prompt is never recorded without the file its
// person attached, and the REPL says so and sends nothing.
//
// One attachment holds at most storage.max_attachment_mb (config.json,
// DefaultMaxAttachmentMB by default); a larger one is refused
// (*AttachmentTooLargeError) and nothing is stored or appended. An
// attachment is not hydrated when a session opens, so it does not count
// toward the eager-load ceiling; it is read back on demand
// (Workspace.ReadAttachment, `cairn attachment`).

// Attachment is a file attached to an item: OID, Name, MediaType, Size;
// LiveOnly with URL and Pages for one whose bytes were never written; Data,
// the content given to Append (never written to any line). Gone and Note
// say what the runtime sends in place of a live-only one it no longer
// holds.
type Attachment = convlog.Attachment

// AttachmentTooLargeError refuses an attachment over the cap. It wraps
// ErrBadInput: nothing was stored or appended.
type AttachmentTooLargeError struct {
	Name  string
	Size  int64 // what was seen: at least the cap plus one byte
	CapMB int
}

func (e *AttachmentTooLargeError) Error() string {
	return fmt.Sprintf("attachment %s is over the %d MB cap (storage.max_attachment_mb in config.json): nothing was attached",
		e.Name, e.CapMB)
}

func (e *AttachmentTooLargeError) Unwrap() error { return ErrBadInput }

// maxAttachmentMB is storage.max_attachment_mb, or its default when
// config.json cannot be read (the session refuses nothing else for it).
func (s *Store) maxAttachmentMB() int {
	if c, err := s.Config(); err == nil && c.Storage.MaxAttachmentMB > 0 {
		return c.Storage.MaxAttachmentMB
	}
	return DefaultMaxAttachmentMB
}

// MediaType is the media type of a file named name whose content starts
// with head: by its extension when that is known, else by sniffing the
// content (net/http.DetectContentType).
func MediaType(name string, head []byte) string {
	if t := mime.TypeByExtension(strings.ToLower(filepath.Ext(name))); t != "" {
		return t
	}
	return http.DetectContentType(head)
}

// PutAttachment stores the content read from r, a file named name, as an
// object of the workspace and returns the attachment that names it, for an
// Item's Attachments. The object is durable when it returns. Over the cap
// it stores nothing and returns *AttachmentTooLargeError.
func (w *Workspace) PutAttachment(ctx context.Context, name string, r io.Reader) (Attachment, error) {
	name = filepath.Base(name)
	if name == "" || name == "." || name == "/" {
		return Attachment{}, fmt.Errorf("%w: an attachment needs a file name", ErrBadInput)
	}
	if err := w.ensure(); err != nil {
		return Attachment{}, err
	}
	capMB := w.s.maxAttachmentMB()
	br := bufio.NewReaderSize(r, 512)
	head, err := br.Peek(512)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return Attachment{}, fmt.Errorf("engine: read attachment %s: %w", name, err)
	}
	a := Attachment{Name: name, MediaType: MediaType(name, head)}
	limit := int64(capMB) << 20
	lr := &capReader{r: br, left: limit}
	info, err := w.objects().Put(ctx, lr)
	if lr.over {
		return Attachment{}, &AttachmentTooLargeError{Name: name, Size: limit + 1, CapMB: capMB}
	}
	if err != nil {
		return Attachment{}, fmt.Errorf("engine: store attachment %s: %w", name, err)
	}
	a.OID, a.Size = info.ID.String(), info.Size
	return a, nil
}

// capReader reads r to its end, and fails (over set) as soon as r holds
// more than left bytes, so that Put stores nothing.
type capReader struct {
	r    io.Reader
	left int64
	over bool
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		var one [1]byte
		if n, err := io.ReadFull(c.r, one[:]); n > 0 {
			c.over = true
			return 0, errors.New("over the attachment cap")
		} else if err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		return 0, io.EOF
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// storeAttachments makes the attachments of an item being appended ready
// for its line: content given as Data is stored (live-only content is
// kept in memory only), a reference to an object is checked to exist. It
// returns the attachments as the session keeps them in memory; the line
// is written from the same values (Data is never marshalled).
func (w *Workspace) storeAttachments(ctx context.Context, in []Attachment) ([]Attachment, error) {
	if len(in) == 0 {
		return nil, nil
	}
	out := make([]Attachment, len(in))
	capMB := w.s.maxAttachmentMB()
	for i, a := range in {
		if strings.TrimSpace(a.Name) == "" {
			return nil, fmt.Errorf("%w: attachment %d has no name", ErrBadInput, i+1)
		}
		switch {
		case a.LiveOnly:
			if a.OID != "" {
				return nil, fmt.Errorf("%w: live-only attachment %s names an object: its bytes are never stored", ErrBadInput, a.Name)
			}
			if a.MediaType == "" {
				a.MediaType = MediaType(a.Name, a.Data)
			}
			if a.Data != nil {
				a.Size = int64(len(a.Data))
			}
		case a.Data != nil:
			if int64(len(a.Data)) > int64(capMB)<<20 {
				return nil, &AttachmentTooLargeError{Name: a.Name, Size: int64(len(a.Data)), CapMB: capMB}
			}
			if err := w.ensure(); err != nil {
				return nil, err
			}
			info, err := w.objects().PutBytes(ctx, a.Data)
			if err != nil {
				return nil, fmt.Errorf("engine: store attachment %s: %w", a.Name, err)
			}
			if a.MediaType == "" {
				a.MediaType = MediaType(a.Name, a.Data)
			}
			a.OID, a.Size, a.Data = info.ID.String(), info.Size, nil
		case a.OID != "":
			id, err := objects.ParseID(a.OID)
			if err != nil {
				return nil, fmt.Errorf("%w: attachment %s: %v", ErrBadInput, a.Name, err)
			}
			ok, err := w.objects().Has(id)
			if err != nil {
				return nil, fmt.Errorf("engine: attachment %s: %w", a.Name, err)
			}
			if !ok {
				return nil, notFoundf("attachment %s names object %s, which this workspace does not hold", a.Name, a.OID)
			}
			if a.MediaType == "" {
				a.MediaType = MediaType(a.Name, nil)
			}
		default:
			return nil, fmt.Errorf("%w: attachment %s has neither content nor an object", ErrBadInput, a.Name)
		}
		out[i] = a
	}
	return out, nil
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
	it := v.st.Items[item]
	if it == nil {
		return nil, noItem(item, session)
	}
	return convlog.OnDisk(it.Attachments), nil
}

// ReadAttachment opens attachment n (1-based) of item (DraftItem for the
// draft's) of session: its bytes, verified against the object's name
// before the reader is returned (a corrupt attachment fails here, so a
// caller that writes what it reads writes nothing of it) and again as
// they are read. A live-only attachment has no bytes to read: it is
// ErrNotFound, and the error says where it came from.
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
