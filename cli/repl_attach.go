package cli

import (
	"fmt"
	"os"
	"strings"

	"cairn/cli/display"
	"cairn/engine"
)

// The REPL's attachments: `:attach PATH` attaches a file to the next
// prompt (checked now, stored when the prompt is sent); `:attach` alone
// lists what the next prompt takes. A draft a fork or revert handed back
// brings its prompt's attachments, which go with the next prompt too.

// replAttachCmd is :attach [PATH].
type replAttachCmd struct {
	Path string `arg:"" optional:"" help:"The file to attach to the next prompt (left out: list what it takes)."`
}

func (c *replAttachCmd) Run(r *repl) error {
	if c.Path == "" {
		if len(r.attachReady)+len(r.attachPaths) == 0 {
			fmt.Fprintln(r.out, "Nothing is attached. :attach PATH attaches a file to the next prompt.")
			return nil
		}
		for _, a := range r.attachReady {
			fmt.Fprintf(r.out, "  %s (%s, from the prompt handed back)\n", display.Line(a.Name), display.Line(a.MediaType))
		}
		for _, p := range r.attachPaths {
			fmt.Fprintf(r.out, "  %s\n", display.Line(p))
		}
		return nil
	}
	fi, err := checkAttach(r.store, c.Path)
	if err != nil {
		fmt.Fprintln(r.out, "cairn:", userError(err), "(nothing was attached)")
		return nil
	}
	r.attachPaths = append(r.attachPaths, c.Path)
	fmt.Fprintf(r.out, "Attached %s (%d bytes); it goes with the next prompt.\n", display.Line(c.Path), fi.Size())
	return nil
}

// takeAttachments stores the files attached for this prompt and returns
// them with those a draft brought; the pending list is emptied either way.
func (r *repl) takeAttachments() ([]engine.Attachment, error) {
	ready, paths := r.attachReady, r.attachPaths
	r.attachReady, r.attachPaths = nil, nil
	out := append([]engine.Attachment(nil), ready...)
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		a, err := r.ws.PutAttachment(r.g.Ctx, p, f)
		f.Close()
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// offerDraftAttachments makes the attachments of the draft the session
// holds go with the next prompt, and says so.
func (r *repl) offerDraftAttachments() {
	atts := r.sess.DraftAttachments()
	if len(atts) == 0 {
		return
	}
	r.attachReady = atts
	var names []string
	for _, a := range atts {
		n := a.Name
		if a.Gone() {
			n += " (live-only: a note goes in its place)"
		}
		names = append(names, n)
	}
	fmt.Fprintf(r.out, "The prompt's attachments go with the next prompt: %s (:attach lists them).\n", display.Line(strings.Join(names, ", ")))
}
