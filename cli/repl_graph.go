package cli

import (
	"fmt"
	"strings"

	"cairn/engine"
)

// graphCommand runs /fork, /revert, /unrevert and /compact.
func (r *repl) graphCommand(name, arg string) {
	ctx := r.g.ctx
	switch name {
	case "/fork":
		at, err := r.itemRef(arg)
		if err != nil {
			fmt.Fprintln(r.out, err)
			return
		}
		res, err := r.sess.Fork(ctx, at)
		if err != nil {
			fmt.Fprintln(r.out, "cairn:", userError(err))
			return
		}
		if id, ok := r.closeSession(); ok {
			fmt.Fprintf(r.out, "The parent stays resumable: cairn --resume %s\n", id)
		}
		// Resuming the child shows the draft it holds.
		if err := r.resume(res.Session); err != nil {
			fmt.Fprintln(r.out, "cairn:", userError(err))
			r.startNew()
			return
		}
	case "/revert":
		fields := strings.Fields(arg)
		if len(fields) == 0 || len(fields) > 2 {
			fmt.Fprintln(r.out, "Usage: /revert ITEM [conversation|files|both]")
			return
		}
		at, err := r.itemRef(fields[0])
		if err != nil {
			fmt.Fprintln(r.out, err)
			return
		}
		mode := engine.RevertConversation
		if len(fields) == 2 {
			mode = engine.RevertMode(fields[1])
		}
		line := "/revert " + at + " " + string(mode)
		previewed := r.revertPreview == line
		r.revertPreview = ""
		if (mode == engine.RevertFiles || mode == engine.RevertBoth) && !previewed {
			// The first files or both revert only previews.
			res, err := r.sess.PreviewRevert(ctx, at, mode)
			if err != nil {
				fmt.Fprintln(r.out, "cairn:", userError(err))
				return
			}
			w, color := r.out, false
			if r.ed != nil && !noColor() {
				w, color = r.g.term, true
			}
			printFileRevert(w, res.Files, "", true, revertDiffs(ctx, r.ws.Path(), res.Files), color)
			fmt.Fprintf(r.out, "Repeat /revert %s to run it; /diff shows what each call changed.\n", arg)
			r.revertPreview = line
			return
		}
		res, err := r.sess.Revert(ctx, at, mode)
		if err != nil {
			fmt.Fprintln(r.out, "cairn:", userError(err))
			return
		}
		if res.Files != nil {
			printFileRevert(r.out, res.Files, "Reverted", false, nil, false)
		}
		if mode != engine.RevertFiles {
			fmt.Fprintf(r.out, "Reverted: %s on the head path now.\n", plural(len(r.sess.Transcript()), "item", "items"))
		}
		r.offerDraft(res.Draft, res.DraftUnavailable)
		r.offerDraftAttachments()
	case "/unrevert":
		r.revertPreview = ""
		res, err := r.sess.Unrevert(ctx)
		if err != nil {
			fmt.Fprintln(r.out, "cairn:", userError(err))
			return
		}
		if res.Files != nil {
			printFileRevert(r.out, res.Files, "Put back", false, nil, false)
		}
		fmt.Fprintf(r.out, "Unreverted: %s on the head path.\n", plural(len(r.sess.Transcript()), "item", "items"))
	case "/compact":
		it, err := r.sess.Compact(ctx, "", "")
		if err != nil {
			fmt.Fprintln(r.out, "cairn:", userError(err))
			return
		}
		fmt.Fprintf(r.out, "Compacted: the older conversation is replaced by a summary (item %s) in the request view; the transcript keeps it all.\n", it.ID)
	}
}

// itemRef turns an item id, or a number counting the head path from 1, into
// an item id; "" is the head.
func (r *repl) itemRef(arg string) (string, error) {
	if arg == "" {
		return r.sess.Head(), nil
	}
	return itemArg(r.sess.Transcript(), arg)
}
