package cli

import (
	"fmt"
	"io"
	"strings"

	"cairn/cli/display"
	"cairn/engine"
)

// StatsCmd is `cairn storage stats`: where the disk went.
type StatsCmd struct{}

func (c *StatsCmd) Run(g *Globals) error {
	s, err := g.Open()
	if err != nil {
		return err
	}
	st, err := s.Stats(g.Ctx)
	if err != nil {
		return err
	}
	if g.JSON {
		return g.PrintJSON(st)
	}
	writeStats(g.Stdout, st, barWidth)
	return nil
}

// SnapshotStoresCmd is `cairn storage snapshots`: the change stores.
type SnapshotStoresCmd struct {
	Session string `name:"session" placeholder:"SESSION" help:"Say whether file revert works for this session of this directory (default: the newest)."`
}

// storesAnswer is `cairn storage snapshots --json`.
type storesAnswer struct {
	Stores []engine.ChangeStore `json:"stores"`
	// Session and RevertUnavailable: the session of this directory asked
	// about, and why file revert cannot work for it ("" when it can).
	Session           string `json:"session,omitempty"`
	RevertUnavailable string `json:"revert_unavailable,omitempty"`
}

func (c *SnapshotStoresCmd) Run(g *Globals) error {
	s, err := g.Open()
	if err != nil {
		return err
	}
	l, err := s.ChangeStores(g.Ctx)
	if err != nil {
		return err
	}
	a := storesAnswer{Stores: l}
	if ws, err := g.workspace(); err == nil {
		if id, err := resolve(g.Ctx, ws, c.Session); err == nil {
			a.Session, a.RevertUnavailable = id, ws.RevertUnavailable(id)
		} else if c.Session != "" {
			return err
		}
	}
	if g.JSON {
		return g.PrintJSON(a)
	}
	writeStores(g.Stdout, l, 0)
	if a.RevertUnavailable != "" {
		fmt.Fprintf(g.Stdout, "File revert is unavailable for session %s: %s.\n", a.Session, a.RevertUnavailable)
	}
	return nil
}

// barWidth is the proportional bar's width in cells.
const barWidth = 50

// partGlyphs draw each part in the bar: distinct without colour (NO_COLOR
// and a pipe see the same bar).
var partGlyphs = map[string]string{
	engine.PartSessions: "█", engine.PartChanges: "▓", engine.PartObjects: "▒", engine.PartOutputs: "░",
	engine.PartArchives: "#", engine.PartTrash: "x", engine.PartOther: "·",
}

// partLabels say what each part holds.
var partLabels = map[string]string{
	engine.PartSessions: "sessions' journals and records",
	engine.PartChanges:  "change records",
	engine.PartObjects:  "objects (payloads, pre-images)",
	engine.PartOutputs:  "tool outputs",
	engine.PartArchives: "archives",
	engine.PartTrash:    "trash",
	engine.PartOther:    "ledger, history, config, folders",
}

// bar is the proportional bar: each part gets cells by its share of the
// bytes (largest remainders first), and a part that holds anything gets
// at least one cell.
func bar(st *engine.StorageStats, width int) string {
	total := st.Total.Bytes
	if total <= 0 {
		return strings.Repeat(" ", width)
	}
	cells := make([]int, len(st.Parts))
	used := 0
	for i, p := range st.Parts {
		cells[i] = int(p.Bytes * int64(width) / total)
		if cells[i] == 0 && p.Bytes > 0 {
			cells[i] = 1
		}
		used += cells[i]
	}
	for used < width {
		best, bestRem := -1, int64(-1)
		for i, p := range st.Parts {
			if rem := p.Bytes*int64(width) - int64(cells[i])*total; p.Bytes > 0 && rem > bestRem {
				best, bestRem = i, rem
			}
		}
		cells[best]++
		used++
	}
	for used > width { // the minimum cells overflowed: take from the largest
		big := 0
		for i := range cells {
			if cells[i] > cells[big] {
				big = i
			}
		}
		cells[big]--
		used--
	}
	var b strings.Builder
	for i, p := range st.Parts {
		b.WriteString(strings.Repeat(partGlyphs[p.Name], cells[i]))
	}
	return b.String()
}

// writeStats prints the bar (cells wide), its legend with exact sizes, the
// counts, and what a prune would reclaim.
func writeStats(w io.Writer, st *engine.StorageStats, cells int) {
	fmt.Fprintf(w, "%s  %s (%s on disk)\n", display.Line(st.Home), humanBytes(st.Total.Bytes), humanBytes(st.Total.Disk))
	fmt.Fprintf(w, "[%s]\n", bar(st, cells))
	for _, p := range st.Parts {
		pct := 0.0
		if st.Total.Bytes > 0 {
			pct = float64(p.Bytes) * 100 / float64(st.Total.Bytes)
		}
		fmt.Fprintf(w, "  %s %-9s %9s %5.1f%%  %d bytes, %d on disk, %s, %s  %s\n", partGlyphs[p.Name], p.Name,
			humanBytes(p.Bytes), pct, p.Bytes, p.Disk, plural(p.Files, "file", "files"), plural(p.Folders, "folder", "folders"), partLabels[p.Name])
	}
	fmt.Fprintf(w, "%s, %s, %s", plural(st.Workspaces, "workspace", "workspaces"), plural(st.Sessions, "session", "sessions"), plural(st.Items, "item", "items"))
	if st.Unrecorded > 0 {
		fmt.Fprintf(w, " (%s without a readable record not counted)", plural(st.Unrecorded, "session", "sessions"))
	}
	fmt.Fprintln(w)
	r := st.Reclaim
	fmt.Fprintf(w, "A prune would reclaim %s (%d bytes): temp files of gone processes %s, outputs of deleted sessions untouched for 7 days %s, "+
		"other files of deleted sessions 7 days old %s, unreferenced objects older than 7 days %s, trash older than 7 days %s.\n",
		humanBytes(r.Bytes), r.Bytes, humanBytes(r.Temps.Bytes), humanBytes(r.OrphanOutputs.Bytes), humanBytes(r.OrphanFiles.Bytes),
		humanBytes(r.UnreferencedObjects.Bytes), humanBytes(r.OldTrash.Bytes))
}

// storesShown is how many stores /storage lists before "/storage all".
const storesShown = 5

// writeStores prints the change stores, largest first; limit > 0 shows only
// that many and says how many more there are.
func writeStores(w io.Writer, l []engine.ChangeStore, limit int) {
	if len(l) == 0 {
		fmt.Fprintln(w, "No change stores.")
		return
	}
	fmt.Fprintln(w, "Change stores, largest first:")
	for i, c := range l {
		if limit > 0 && i == limit {
			fmt.Fprintf(w, "  … %d more (/storage all lists every one)\n", len(l)-limit)
			break
		}
		name := display.Line(c.Path)
		if c.PathGone || c.Path == "" {
			name = display.Line(c.Key) + " (directory gone)"
		}
		mark := ""
		if c.Orphaned {
			mark = "  ORPHANED: no session holds it"
		}
		fmt.Fprintf(w, "  %9s  %s  %s, %s, %d of %s holding records, %s, %s%s\n",
			humanBytes(c.Size.Bytes), name, plural(c.Objects, "object", "objects"), plural(c.Records, "record", "records"), c.Holding,
			plural(c.Sessions, "session", "sessions"), plural(c.Open, "open record", "open records"), plural(c.PendingReverts, "pending revert", "pending reverts"), mark)
	}
}

// replStorageCmd is /storage in the REPL: it says at once that it is
// measuring, then prints the figures when the walk returns (Ctrl-C stops
// the walk). "/storage all" lists every change store instead of the
// largest few.
type replStorageCmd struct {
	All string `arg:"" optional:"" enum:"all," default:"" placeholder:"all" help:"all: every change store, not only the largest few."`
}

func (c *replStorageCmd) Run(r *repl, l *replLine) error {
	ctx, all := l.ctx, c.All == "all"
	if r.store.Ephemeral() {
		fmt.Fprintln(r.out, "This session is not recorded: its state folder is a temporary one.")
	}
	width := r.width()
	fmt.Fprint(r.out, fitText(fmt.Sprintf("Measuring %s …\n", display.Line(r.store.Home())), width))
	st, err := r.store.Stats(ctx)
	if err != nil {
		return err
	}
	// Printed when whole, fitted to the window; the bar too.
	var b strings.Builder
	cells := barWidth
	if width > 0 {
		cells = max(min(barWidth, width-3), 10)
	}
	writeStats(&b, st, cells)
	stores, err := r.store.ChangeStores(ctx)
	if err != nil {
		fmt.Fprint(r.out, fitText(b.String(), width))
		return err
	}
	limit := storesShown
	if all {
		limit = 0
	}
	writeStores(&b, stores, limit)
	if r.sess != nil && r.sess.Recorded() {
		if why := r.ws.RevertUnavailable(r.sess.ID()); why != "" {
			fmt.Fprintf(&b, "File revert is unavailable for this session: %s.\n", why)
		}
	}
	fmt.Fprint(r.out, fitText(b.String(), width))
	return nil
}
