package cli

import (
	"fmt"

	"cairn/engine"
)

// replForkCmd is /fork [ITEM].
type replForkCmd struct {
	Item string `arg:"" optional:"" placeholder:"ITEM" help:"Item to fork at: an item id, or N for the Nth item of the head path (default: the head)."`
}

func (c *replForkCmd) Run(r *repl) error {
	at, err := r.itemRef(c.Item)
	if err != nil {
		fmt.Fprintln(r.out, err)
		return nil
	}
	res, err := r.sess.Fork(r.g.Ctx, at)
	if err != nil {
		return err
	}
	if id, ok := r.closeSession(); ok {
		fmt.Fprintf(r.out, "The parent stays resumable: cairn --resume %s\n", id)
	}
	// Resuming the child shows the draft it holds.
	if err := r.resume(res.Session); err != nil {
		fmt.Fprintln(r.out, "cairn:", userError(err))
		r.startNew()
	}
	return nil
}

// replRevertCmd is /revert ITEM [conversation|files|both].
type replRevertCmd struct {
	Item string `arg:"" placeholder:"ITEM" help:"Item to revert to (an id, or N for the Nth item of the head path): a user prompt lands before it, other items are kept."`
	Mode string `arg:"" optional:"" default:"conversation" enum:"conversation,files,both" placeholder:"conversation|files|both" help:"What moves back: the conversation's head (the default), the recorded file changes (files), or both; files and both preview first."`
}

func (c *replRevertCmd) Run(r *repl) error {
	ctx := r.g.Ctx
	at, err := r.itemRef(c.Item)
	if err != nil {
		fmt.Fprintln(r.out, err)
		return nil
	}
	mode := engine.RevertMode(c.Mode)
	line := "/revert " + at + " " + string(mode)
	previewed := r.revertPreview == line
	r.revertPreview = ""
	if (mode == engine.RevertFiles || mode == engine.RevertBoth) && !previewed {
		// The first files or both revert only previews.
		res, remote, err := r.revertFilesDiffs(ctx, at, mode, false)
		if err != nil {
			return err
		}
		w, color := r.out, false
		if r.ed != nil && !noColor() {
			w, color = r.g.Term, true
		}
		printFileRevert(w, res.Files, "", true, r.previewDiffs(ctx, res, remote), color)
		fmt.Fprintf(r.out, "Repeat /revert %s %s to run it; /diff shows what each call changed.\n", c.Item, mode)
		r.revertPreview = line
		return nil
	}
	var res *engine.RevertResult
	if mode == engine.RevertConversation {
		res, err = r.sess.Revert(ctx, at, mode)
	} else {
		res, err = r.revertFiles(ctx, at, mode, true)
	}
	if err != nil {
		return err
	}
	if res.Files != nil {
		printFileRevert(r.out, res.Files, "Reverted", false, nil, false)
	}
	if mode != engine.RevertFiles {
		fmt.Fprintf(r.out, "Reverted: %s on the head path now.\n", plural(len(r.sess.Transcript()), "item", "items"))
	}
	r.offerDraft(res.Draft, res.DraftUnavailable)
	r.offerDraftAttachments()
	return nil
}

// replUnrevertCmd is /unrevert.
type replUnrevertCmd struct{}

func (c *replUnrevertCmd) Run(r *repl) error {
	r.revertPreview = ""
	res, err := r.unrevert(r.g.Ctx)
	if err != nil {
		return err
	}
	if res.Files != nil {
		printFileRevert(r.out, res.Files, "Put back", false, nil, false)
	}
	fmt.Fprintf(r.out, "Unreverted: %s on the head path.\n", plural(len(r.sess.Transcript()), "item", "items"))
	return nil
}

// replCompactCmd is /compact.
type replCompactCmd struct{}

func (c *replCompactCmd) Run(r *repl) error {
	it, err := r.sess.Compact(r.g.Ctx, "", "")
	if err != nil {
		return err
	}
	fmt.Fprintf(r.out, "Compacted: the older conversation is replaced by a summary (item %s) in the request view; the transcript keeps it all.\n", it.ID)
	return nil
}

// itemRef turns an item id, or a number counting the head path from 1, into
// an item id; "" is the head.
func (r *repl) itemRef(arg string) (string, error) {
	if arg == "" {
		return r.sess.Head(), nil
	}
	return itemArg(r.sess.Transcript(), arg)
}
