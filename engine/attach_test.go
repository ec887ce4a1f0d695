package engine

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"cairn/internal/vfs"
	"cairn/objects"
)

// randomBytes are n bytes no compressor shrinks, so that finding them in a
// file means they were written there.
func randomBytes(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 17))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func readAttachment(t *testing.T, ws *Workspace, session, item string, n int) (Attachment, []byte) {
	t.Helper()
	a, rc, err := ws.ReadAttachment(context.Background(), session, item, n)
	if err != nil {
		t.Fatalf("ReadAttachment(%s, %s, %d): %v", session, item, n, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return a, b
}

// countObjects is how many objects the workspace's store holds.
func countObjects(t *testing.T, ws *Workspace) int {
	t.Helper()
	n := 0
	if err := ws.objects().Walk(context.Background(), func(objects.Info) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

// A pasted file goes with its prompt byte for byte: stored once, read
// back by item, handed back with the text by a fork at the prompt, and
// sent again from the child's draft naming the same object.
func TestAttachmentRoundTripsThroughForkDraft(t *testing.T) {
	ctx := context.Background()
	_, ws := testStore(t)
	png := append([]byte("\x89PNG\r\n\x1a\n"), randomBytes(1, 200<<10)...)
	a, err := ws.PutAttachment(ctx, "/tmp/shots/screen shot.png", bytes.NewReader(png))
	if err != nil {
		t.Fatal(err)
	}
	if a.Name != "screen shot.png" || a.MediaType != "image/png" || a.Size != int64(len(png)) || a.OID != objects.Sum(png).String() {
		t.Fatalf("attachment %+v", a)
	}
	s := ws.Create(SessionOptions{})
	defer s.Close()
	log := []byte("plain log line\n") // no extension: the media type is sniffed
	u := must(s.Append(ctx, Item{Type: User, Text: "what is wrong here?", Attachments: []Attachment{a, {Name: "run-output", Data: log}}}))(t)
	must(s.Append(ctx, Item{Type: Assistant, Text: "the button"}))(t)
	if got := u.Attachments; len(got) != 2 || got[1].MediaType != "text/plain; charset=utf-8" || got[1].Data != nil || got[1].OID == "" {
		t.Fatalf("appended attachments %+v", got)
	}
	must(0, s.Commit(ctx))(t)
	if _, b := readAttachment(t, ws, s.ID(), u.ID, 1); !bytes.Equal(b, png) {
		t.Fatalf("attachment 1 read back %d bytes, want the %d pasted", len(b), len(png))
	}
	if _, b := readAttachment(t, ws, s.ID(), u.ID, 2); !bytes.Equal(b, log) {
		t.Fatalf("attachment 2 read back %q", b)
	}
	objs := countObjects(t, ws)

	res := must(s.Fork(ctx, u.ID))(t)
	if res.Draft != "what is wrong here?" || len(res.DraftAttachments) != 2 || res.DraftAttachments[0].OID != a.OID {
		t.Fatalf("fork at the prompt: draft %q, attachments %+v", res.Draft, res.DraftAttachments)
	}
	if n := countObjects(t, ws); n != objs {
		t.Fatalf("the fork stored objects again: %d, was %d", n, objs)
	}
	if _, b := readAttachment(t, ws, res.Session, DraftItem, 1); !bytes.Equal(b, png) {
		t.Fatal("the child's draft does not read back the pasted bytes")
	}
	child := must(ws.Open(ctx, res.Session, SessionOptions{}))(t)
	defer child.Close()
	atts := child.DraftAttachments()
	if len(atts) != 2 {
		t.Fatalf("the reopened child's draft attachments: %+v", atts)
	}
	sent := must(child.Append(ctx, Item{Type: User, Text: "what is wrong here? (again)", Attachments: atts}))(t)
	must(0, child.Close())(t)
	if _, b := readAttachment(t, ws, res.Session, sent.ID, 1); !bytes.Equal(b, png) {
		t.Fatal("the prompt sent from the draft does not read back the pasted bytes")
	}
	if n := countObjects(t, ws); n != objs {
		t.Fatalf("sending the draft stored objects again: %d, was %d", n, objs)
	}
	if _, _, err := ws.ReadAttachment(ctx, res.Session, sent.ID, 3); !errors.Is(err, ErrNotFound) {
		t.Fatalf("attachment 3 of 2: %v", err)
	}
	if rep := must(ws.s.Fsck(ctx))(t); len(rep.Problems) != 0 {
		t.Fatalf("fsck: %+v", rep.Problems)
	}
}

// A live-only attachment (a fetched PDF) is held by the live session and
// never written: the state folder holds none of its bytes. Resumed or
// forked, the item keeps URL, name and page count, and the runtime is told
// to send the note instead.
func TestLiveOnlyAttachmentNeverReachesDisk(t *testing.T) {
	ctx := context.Background()
	st, ws := testStore(t)
	pdf := append([]byte("%PDF-1.7\n"), randomBytes(2, 64<<10)...)
	s := ws.Create(SessionOptions{})
	pdfAtt := Attachment{Name: "paper.pdf", LiveOnly: true, URL: "https://example.org/paper.pdf", Pages: 12, Data: pdf}
	u := must(s.Append(ctx, Item{Type: User, Text: "summarise this", Attachments: []Attachment{pdfAtt}}))(t)
	must(s.Append(ctx, Item{Type: Assistant, Text: "it says"}))(t)
	if got := s.Transcript()[0].Attachments[0]; !bytes.Equal(got.Data, pdf) || got.Gone() || got.MediaType != "application/pdf" {
		t.Fatalf("the live session does not hold the bytes: %d bytes, gone %v, %s", len(got.Data), got.Gone(), got.MediaType)
	}
	res := must(s.Fork(ctx, u.ID))(t)
	must(0, s.Close())(t)

	// No file of the state folder holds any stretch of the bytes, raw or
	// as JSON would encode them (base64).
	b64 := []byte(base64.StdEncoding.EncodeToString(pdf))
	for _, probe := range [][]byte{pdf[9:73], pdf[32<<10 : 32<<10+64], pdf[len(pdf)-64:], b64[400:480]} {
		filepath.WalkDir(st.Home(), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, _ := os.ReadFile(p)
			if bytes.Contains(b, probe) {
				t.Fatalf("%s holds the live-only attachment's bytes", p)
			}
			return nil
		})
	}
	if ok, _ := ws.objects().Has(objects.Sum(pdf)); ok {
		t.Fatal("the live-only attachment was stored as an object")
	}

	for _, id := range []string{s.ID(), res.Session} {
		r := must(ws.Open(ctx, id, SessionOptions{}))(t)
		var a Attachment
		if id == s.ID() {
			a = r.Transcript()[0].Attachments[0]
		} else {
			a = r.DraftAttachments()[0]
		}
		r.Close()
		if !a.Gone() || a.Data != nil || a.URL != pdfAtt.URL || a.Pages != 12 || a.Name != "paper.pdf" {
			t.Fatalf("%s: %+v", id, a)
		}
		for _, want := range []string{"paper.pdf", "12 pages", pdfAtt.URL, "fetch it again"} {
			if !strings.Contains(a.Note(), want) {
				t.Fatalf("note %q lacks %q", a.Note(), want)
			}
		}
	}
	if _, _, err := ws.ReadAttachment(ctx, s.ID(), u.ID, 1); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "live-only") {
		t.Fatalf("reading a live-only attachment: %v", err)
	}
}

// Over storage.max_attachment_mb an attachment is refused, naming the
// cap, and nothing is stored or appended.
func TestAttachmentOverCapRefused(t *testing.T) {
	ctx := context.Background()
	st, ws := testStore(t)
	must(0, os.WriteFile(filepath.Join(st.Home(), "config.json"), []byte(`{"storage":{"max_attachment_mb":1}}`), 0o600))(t)
	big := randomBytes(3, 1<<20+1)
	_, err := ws.PutAttachment(ctx, "big.bin", bytes.NewReader(big))
	var tooBig *AttachmentTooLargeError
	if !errors.As(err, &tooBig) || !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "storage.max_attachment_mb") {
		t.Fatalf("PutAttachment over the cap: %v", err)
	}
	s := ws.Create(SessionOptions{})
	defer s.Close()
	must(s.Append(ctx, Item{Type: User, Text: "first"}))(t)
	if _, err := s.Append(ctx, Item{Type: User, Text: "second", Attachments: []Attachment{{Name: "big.bin", Data: big}}}); !errors.As(err, &tooBig) {
		t.Fatalf("Append over the cap: %v", err)
	}
	if n := len(s.AllItems()); n != 1 {
		t.Fatalf("a refused attachment appended its item: %d items", n)
	}
	if n := countObjects(t, ws); n != 0 {
		t.Fatalf("a refused attachment left %d objects", n)
	}
	// Exactly the cap is taken.
	if _, err := ws.PutAttachment(ctx, "fits.bin", bytes.NewReader(big[:1<<20])); err != nil {
		t.Fatalf("an attachment of exactly the cap: %v", err)
	}
}

// The media type comes from the extension, else from the content.
func TestAttachmentMediaType(t *testing.T) {
	for _, c := range []struct {
		name string
		head []byte
		want string
	}{
		{"shot.PNG", nil, "image/png"},
		{"noext", []byte("\x89PNG\r\n\x1a\n...."), "image/png"},
		{"notes", []byte("just text"), "text/plain; charset=utf-8"},
		{"doc.pdf", nil, "application/pdf"},
	} {
		if got := MediaType(c.name, c.head); got != c.want {
			t.Errorf("MediaType(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}

// An attachment that cannot be stored (a full disk) refuses its prompt,
// in Degrade mode too: the prompt is never recorded without its file.
// Once the disk has room the same prompt goes through.
func TestAttachmentFullDiskRefusesItsPrompt(t *testing.T) {
	e := newDegradeEnv(t)
	must(e.s.Append(e.ctx, Item{Type: User, Text: "before"}))(t)
	data := randomBytes(4, 40<<10)
	e.state.Inject(vfs.Rule{Path: "workspaces/*/objects/**", Err: errENOSPC})
	if _, err := e.s.Append(e.ctx, Item{Type: User, Text: "with a file", Attachments: []Attachment{{Name: "f.bin", Data: data}}}); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Append with an attachment on a full disk: %v", err)
	}
	if n := len(e.s.AllItems()); n != 1 {
		t.Fatalf("the refused prompt is in the session: %d items", n)
	}
	e.state.Reset()
	u := must(e.s.Append(e.ctx, Item{Type: User, Text: "with a file", Attachments: []Attachment{{Name: "f.bin", Data: data}}}))(t)
	must(0, e.s.Commit(e.ctx))(t)
	if _, b := readAttachment(t, e.ws, e.s.ID(), u.ID, 1); !bytes.Equal(b, data) {
		t.Fatal("the attachment does not read back")
	}
}

// A revert to a prompt hands its attachments back too; a missing
// attachment object is named by fsck at the line that names it, and
// reading it says it is missing.
func TestAttachmentRevertDraftAndMissingObject(t *testing.T) {
	ctx := context.Background()
	_, ws := testStore(t)
	s := ws.Create(SessionOptions{})
	defer s.Close()
	data := randomBytes(5, 10<<10)
	u := must(s.Append(ctx, Item{Type: User, Text: "look", Attachments: []Attachment{{Name: "a.bin", Data: data}}}))(t)
	must(s.Append(ctx, Item{Type: Assistant, Text: "seen"}))(t)
	must(s.Revert(ctx, u.ID, RevertConversation))(t)
	if atts := s.DraftAttachments(); len(atts) != 1 || atts[0].OID != u.Attachments[0].OID {
		t.Fatalf("the revert's draft attachments: %+v", atts)
	}
	must(0, s.Commit(ctx))(t)
	id := must(objects.ParseID(u.Attachments[0].OID))(t)
	for _, z := range []bool{false, true} {
		ws.s.fsys.Remove(ws.objects().Path(id, z))
	}
	rep := must(ws.s.Fsck(ctx))(t)
	if !slices.ContainsFunc(rep.Problems, func(p FsckProblem) bool {
		return strings.Contains(p.Path, s.ID()+".items.jsonl:") && strings.Contains(p.Problem, "which is missing")
	}) {
		t.Fatalf("fsck does not name the line of the missing attachment: %+v", rep.Problems)
	}
	if _, _, err := ws.ReadAttachment(ctx, s.ID(), u.ID, 1); !errors.Is(err, objects.ErrNotFound) {
		t.Fatalf("reading a missing attachment: %v", err)
	}
}
