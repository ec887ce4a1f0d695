// Package attach stores the files a person attaches to a prompt as objects
// of the workspace's store, and checks the attachments an item names
// before its line is written.
//
// A file a person pastes into a prompt (a screenshot, a log)
// is part of their message and is kept with it. Its bytes are stored as an
// object in the workspace's store, and the item's line names it. Part of
// the format:
//
//	{"v":1,"kind":"item",...,"attachments":[{"oid":SHA256,"name":"shot.png","media_type":"image/png","size":N}]}
//	{"v":1,"kind":"item",...,"attachments":[{"name":"paper.pdf","media_type":"application/pdf","live_only":true,"url":U,"pages":N}]}
//
// The second is live-only (a PDF a fetch attached for the live session):
// the line keeps its URL, file name and page count, never its bytes. The
// session that appended it holds the bytes in memory (Data);
// a resumed or forked session has none, and the runtime sends Note in
// their place (Gone). A fork at a prompt hands its
// attachments back with its text, in the child's draft (engine/draft.go), by
// reference: an object is stored once per workspace and shared.
//
// An attachment that cannot be stored (a full disk) refuses its item, in
// Degrade mode too: a prompt is never recorded without the file its
// person attached, and the REPL says so and sends nothing.
//
// One attachment holds at most storage.max_attachment_mb (config.json,
// DefaultMaxAttachmentMB by default); a larger one is refused
// (*TooLargeError) and nothing is stored or appended. An
// attachment is not hydrated when a session opens, so it does not count
// toward the eager-load ceiling; it is read back on demand
// (engine's Workspace.ReadAttachment, `cairn attachment`).
//
// Locks: none. The caller passes the store and the cap.
package attach

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"path/filepath"
	"strings"

	"cairn/engine/internal/convlog"
	"cairn/engine/internal/errs"
	"cairn/objects"
)

// Attachment is the item's attachment (convlog.Attachment).
type Attachment = convlog.Attachment

// TooLargeError refuses an attachment over the cap. It wraps ErrBadInput:
// nothing was stored or appended.
type TooLargeError struct {
	Name  string
	Size  int64 // what was seen: at least the cap plus one byte
	CapMB int
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("attachment %s is over the %d MB cap (storage.max_attachment_mb in config.json): nothing was attached",
		e.Name, e.CapMB)
}

func (e *TooLargeError) Unwrap() error { return errs.ErrBadInput }

// MediaType is the media type of a file named name whose content starts
// with head: by its extension when that is known, else by sniffing the
// content (sniff.go, as net/http.DetectContentType does).
func MediaType(name string, head []byte) string {
	if t := mime.TypeByExtension(strings.ToLower(filepath.Ext(name))); t != "" {
		return t
	}
	return sniff(head)
}

// Put stores the content read from r, a file named name (a base name), as
// an object of objs and returns the attachment that names it. The object
// is durable when it returns. Over capMB it stores nothing and returns
// *TooLargeError.
func Put(ctx context.Context, objs *objects.Store, name string, r io.Reader, capMB int) (Attachment, error) {
	br := bufio.NewReaderSize(r, 512)
	head, err := br.Peek(512)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return Attachment{}, fmt.Errorf("engine: read attachment %s: %w", name, err)
	}
	a := Attachment{Name: name, MediaType: MediaType(name, head)}
	limit := int64(capMB) << 20
	lr := &capReader{r: br, left: limit}
	info, err := objs.Put(ctx, lr)
	if lr.over {
		return Attachment{}, &TooLargeError{Name: name, Size: limit + 1, CapMB: capMB}
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

// Prepare makes the attachments of an item being appended ready
// for its line: content given as Data is stored (live-only content is
// kept in memory only), a reference to an object is checked to exist. It
// returns the attachments as the session keeps them in memory; objs
// is the workspace's store, whose folder ensure makes before a write; the line
// is written from the same values (Data is never marshalled).
func Prepare(ctx context.Context, objs *objects.Store, ensure func() error, capMB int, in []Attachment) ([]Attachment, error) {
	if len(in) == 0 {
		return nil, nil
	}
	out := make([]Attachment, len(in))
	for i, a := range in {
		if strings.TrimSpace(a.Name) == "" {
			return nil, fmt.Errorf("%w: attachment %d has no name", errs.ErrBadInput, i+1)
		}
		switch {
		case a.LiveOnly:
			if a.OID != "" {
				return nil, fmt.Errorf("%w: live-only attachment %s names an object: its bytes are never stored", errs.ErrBadInput, a.Name)
			}
			if a.MediaType == "" {
				a.MediaType = MediaType(a.Name, a.Data)
			}
			if a.Data != nil {
				a.Size = int64(len(a.Data))
			}
		case a.Data != nil:
			if int64(len(a.Data)) > int64(capMB)<<20 {
				return nil, &TooLargeError{Name: a.Name, Size: int64(len(a.Data)), CapMB: capMB}
			}
			if err := ensure(); err != nil {
				return nil, err
			}
			info, err := objs.PutBytes(ctx, a.Data)
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
				return nil, fmt.Errorf("%w: attachment %s: %v", errs.ErrBadInput, a.Name, err)
			}
			ok, err := objs.Has(id)
			if err != nil {
				return nil, fmt.Errorf("engine: attachment %s: %w", a.Name, err)
			}
			if !ok {
				return nil, errs.NotFoundf("attachment %s names object %s, which this workspace does not hold", a.Name, a.OID)
			}
			if a.MediaType == "" {
				a.MediaType = MediaType(a.Name, nil)
			}
		default:
			return nil, fmt.Errorf("%w: attachment %s has neither content nor an object", errs.ErrBadInput, a.Name)
		}
		out[i] = a
	}
	return out, nil
}
