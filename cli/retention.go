package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"time"

	"github.com/alecthomas/kong"
	"github.com/schollz/progressbar/v3"
	xterm "golang.org/x/term"

	"cairn/cli/display"
	"cairn/engine"
	"cairn/engine/retention"
	"cairn/internal/timefmt"
)

// RetentionCmds are the storage commands of retention: trim, forget,
// sessions, pin, unpin, restore and prune (embedded in StorageCmd).
type RetentionCmds struct {
	Trim     TrimCmd            `cmd:"" help:"Trim sessions to the transcript tier: drop their change records, tool outputs and shell output, keep the conversation. Without SESSION, the storage.retention.trim policy (or the --keep flags) decides."`
	Forget   ForgetCmd          `cmd:"" help:"Forget sessions: move them to the trash, restorable for 7 days. Without SESSION, the storage.retention.forget policy (or the --keep flags) decides."`
	Sessions StorageSessionsCmd `cmd:"" name:"sessions" help:"List every session with its tier, pin, owner and sizes."`
	Pin      PinCmd             `cmd:"" help:"Pin a session: every policy keeps it, trim and forget refuse it."`
	Unpin    UnpinCmd           `cmd:"" help:"Unpin a session."`
	Restore  RestoreCmd         `cmd:"" help:"Bring a forgotten session back from the trash."`
	Prune    PruneCmd           `cmd:"" help:"Remove what nothing needs, once 7 days old: the trash, orphaned files, unreferenced objects."`
}

// PolicyFlags are restic's rule names as flags; any of them given makes
// the policy of this run, in place of config.json's.
type PolicyFlags struct {
	KeepLast          keepCount `name:"keep-last" placeholder:"N" help:"Keep the N most recently active sessions (-1 or unlimited: all)."`
	KeepHourly        keepCount `name:"keep-hourly" placeholder:"N" help:"Keep the newest session of each of the last N hours that have any."`
	KeepDaily         keepCount `name:"keep-daily" placeholder:"N" help:"... of each of the last N days."`
	KeepWeekly        keepCount `name:"keep-weekly" placeholder:"N" help:"... of each of the last N ISO weeks (from Monday)."`
	KeepMonthly       keepCount `name:"keep-monthly" placeholder:"N" help:"... of each of the last N months."`
	KeepYearly        keepCount `name:"keep-yearly" placeholder:"N" help:"... of each of the last N years."`
	KeepWithin        string    `name:"keep-within" placeholder:"D" help:"Keep every session active within D of the newest (y, m, d, h parts: 90d, 2y5m7d3h)."`
	KeepWithinHourly  string    `name:"keep-within-hourly" placeholder:"D" help:"Keep one session per hour within D."`
	KeepWithinDaily   string    `name:"keep-within-daily" placeholder:"D" help:"Keep one session per day within D."`
	KeepWithinWeekly  string    `name:"keep-within-weekly" placeholder:"D" help:"Keep one session per week within D."`
	KeepWithinMonthly string    `name:"keep-within-monthly" placeholder:"D" help:"Keep one session per month within D."`
	KeepWithinYearly  string    `name:"keep-within-yearly" placeholder:"D" help:"Keep one session per year within D."`
}

// keepCount is the value of a --keep-* count flag. A flag's value that
// begins with a hyphen is taken for another flag by kong, so the help's
// own "--keep-last -1" would be refused: a count takes the next argument
// when it is a negative whole number. What the number means is
// retention.Policy's to say (Set).
type keepCount string

func (c *keepCount) Decode(ctx *kong.DecodeContext) error {
	if t := ctx.Scan.Peek(); t.Type == kong.UntypedToken {
		if v, ok := t.Value.(string); ok && negativeNumber(v) {
			ctx.Scan.Pop()
			*c = keepCount(v)
			return nil
		}
	}
	t, err := ctx.Scan.PopValue("count")
	if err != nil {
		return err
	}
	*c = keepCount(fmt.Sprint(t.Value))
	return nil
}

// negativeNumber reports whether v is "-" and digits.
func negativeNumber(v string) bool {
	d, ok := strings.CutPrefix(v, "-")
	return ok && d != "" && strings.Trim(d, "0123456789") == ""
}

// policy is the flags' policy, and whether any flag was given.
func (f *PolicyFlags) policy() (retention.Policy, bool, error) {
	var p retention.Policy
	given := false
	v := reflect.ValueOf(f).Elem()
	for i := range v.NumField() {
		val := v.Field(i).String()
		if val == "" {
			continue
		}
		flag := v.Type().Field(i).Tag.Get("name")
		if err := p.Set(strings.ReplaceAll(flag, "-", "_"), val); err != nil {
			return p, false, usageErrorf("--%s: %v", flag, err)
		}
		given = true
	}
	return p, given, nil
}

// TrimCmd trims sessions.
type TrimCmd struct {
	retentionRun
}

func (c *TrimCmd) Run(g *Globals) error { return c.run(g, engine.ActionTrim) }

// ForgetCmd forgets sessions.
type ForgetCmd struct {
	retentionRun
	Remote string `name:"remote" placeholder:"NAME" help:"Forget on a remote instead (tombstones first; SESSION is a full id there)."`
}

func (c *ForgetCmd) Run(g *Globals) error {
	if c.Remote != "" {
		return g.remoteForget(c.Remote, &c.retentionRun)
	}
	return c.run(g, engine.ActionForget)
}

type retentionRun struct {
	DryRun bool `name:"dry-run" help:"Print the plan, with the reasons each session is kept, and change nothing."`
	PolicyFlags
	Session []string `arg:"" optional:"" name:"SESSION" help:"Sessions (id, unique prefix or exact title) to act on, whatever the policy."`
}

func (c *retentionRun) run(g *Globals, action string) error {
	s, err := g.Open()
	if err != nil {
		return err
	}
	cfg, err := s.Config()
	if err != nil {
		return err
	}
	opt := engine.RetentionOptions{Action: action, Policy: cfg.Storage.Trim, GroupBy: cfg.Storage.GroupBy}
	if action == engine.ActionForget {
		opt.Policy = cfg.Storage.Forget
	}
	p, given, err := c.policy()
	if err != nil {
		return err
	}
	if given {
		if len(c.Session) > 0 {
			return usageErrorf("give SESSION or --keep flags, not both")
		}
		opt.Policy = p
	}
	for _, ref := range c.Session {
		id, err := g.findSession(ref)
		if err != nil {
			return err
		}
		opt.Sessions = append(opt.Sessions, id)
	}
	var plan *engine.RetentionPlan
	if c.DryRun {
		plan, err = s.PlanRetention(g.Ctx, opt)
	} else {
		bar := g.progress(action)
		opt.Progress = bar.tell
		plan, err = s.RunRetention(g.Ctx, opt)
		bar.done()
	}
	if err != nil {
		return err
	}
	return g.printPlan(plan, opt.Policy, len(opt.Sessions) > 0, given)
}

// findSession resolves a SESSION of a storage command: in this directory's
// workspace, else, for a full id, in any workspace.
func (g *Globals) findSession(ref string) (string, error) {
	ws, err := g.workspace()
	if err != nil {
		return "", err
	}
	id, err := ws.Resolve(g.Ctx, ref)
	if errors.Is(err, engine.ErrNotFound) {
		s, _ := g.Open()
		if _, ferr := s.FindSession(g.Ctx, strings.TrimSpace(ref)); ferr == nil {
			return strings.TrimSpace(ref), nil
		}
	}
	return id, err
}

type planEntryJSON struct {
	Session  string       `json:"session"`
	Activity timefmt.Time `json:"activity"`
	Reasons  *[]string    `json:"reasons,omitempty"`
}

type planGroupJSON struct {
	Directory string          `json:"directory"`
	Keep      []planEntryJSON `json:"keep"`
	Remove    []planEntryJSON `json:"remove"`
	Skipped   []planEntryJSON `json:"skipped,omitempty"`
}

// printPlan prints a plan the same way for a dry run and a real run, so
// that the dry run shows exactly what the run then does.
func (g *Globals) printPlan(plan *engine.RetentionPlan, pol retention.Policy, named, flags bool) error {
	if g.JSON {
		out := []planGroupJSON{}
		for _, gr := range plan.Groups {
			j := planGroupJSON{Directory: gr.Directory, Keep: []planEntryJSON{}, Remove: []planEntryJSON{}}
			for _, e := range gr.Keep {
				r := e.Reasons
				j.Keep = append(j.Keep, planEntryJSON{Session: e.Session, Activity: timefmt.Mk(e.Activity), Reasons: &r})
			}
			for _, e := range gr.Remove {
				j.Remove = append(j.Remove, planEntryJSON{Session: e.Session, Activity: timefmt.Mk(e.Activity)})
			}
			for _, e := range plan.Skipped {
				if e.Directory == gr.Directory || gr.Directory == "" {
					j.Skipped = append(j.Skipped, planEntryJSON{Session: e.Session, Activity: timefmt.Mk(e.Activity)})
				}
			}
			out = append(out, j)
		}
		return g.PrintJSON(out)
	}
	verb := plan.Action
	switch {
	case named:
		fmt.Fprintf(g.Stdout, "%s: the sessions named\n", plan.Action)
	case pol.Empty() && flags:
		// --keep-last 0, --keep-within 0d: a rule of 0 is off.
		fmt.Fprintf(g.Stdout, "%s: no policy (the --keep flags given are all 0, which turns a rule off): every session is kept\n", plan.Action)
	case pol.Empty():
		fmt.Fprintf(g.Stdout, "%s: no policy (storage.retention.%s is empty and no --keep flag was given): every session is kept\n", plan.Action, plan.Action)
	default:
		fmt.Fprintf(g.Stdout, "%s: %s\n", plan.Action, pol)
	}
	for _, gr := range plan.Groups {
		dir := gr.Directory
		if dir == "" {
			dir = "(every directory)"
		}
		fmt.Fprintf(g.Stdout, "%s\n", display.Line(dir))
		for _, e := range gr.Keep {
			fmt.Fprintf(g.Stdout, "  keep    %s  %s  %s  (%s)\n", e.Session, when(e.Activity), display.Title(e.Title), strings.Join(e.Reasons, ", "))
		}
		for _, e := range gr.Remove {
			size := ""
			if plan.Action == engine.ActionTrim {
				size = "  " + humanBytes(e.Bytes)
			}
			fmt.Fprintf(g.Stdout, "  %-6s  %s  %s  %s%s\n", verb, e.Session, when(e.Activity), display.Title(e.Title), size)
		}
	}
	for _, e := range plan.Skipped {
		fmt.Fprintf(g.Stdout, "skipped %s: opened or pinned since the plan was made, or the trash holds a forgotten session of its id\n", e.Session)
	}
	return nil
}

func when(t time.Time) string {
	if t.IsZero() {
		return "-               "
	}
	return t.Local().Format("2006-01-02 15:04")
}

// humanBytes is a byte count for people, in the units the rest of cairn
// prints (B, KB, MB, GB of 1024): storage stats, sessions and prune share it.
func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// StorageSessionsCmd lists every session with its tier.
type StorageSessionsCmd struct{}

func (c *StorageSessionsCmd) Run(g *Globals) error {
	s, err := g.Open()
	if err != nil {
		return err
	}
	list, err := s.StoredSessions(g.Ctx)
	if err != nil {
		return err
	}
	if g.JSON {
		type row struct {
			engine.StoredSession
			Activity timefmt.Time `json:"activity"`
		}
		out := make([]row, len(list))
		for i, r := range list {
			out[i] = row{r, timefmt.Mk(r.Activity)}
		}
		return g.PrintJSON(out)
	}
	if len(list) > 0 {
		fmt.Fprintf(g.Stdout, "  %-36s  %-10s  %-16s  %9s  %9s  %s\n", "SESSION", "TIER", "ACTIVITY", "CONVERSATION", "ARTIFACTS", "TITLE")
	}
	dir := "\x00"
	for _, r := range list {
		if r.Directory != dir {
			dir = r.Directory
			fmt.Fprintln(g.Stdout, display.Line(dir))
		}
		flags := ""
		if r.Pinned {
			flags += " pinned"
		}
		if r.Open {
			flags += " open"
		}
		fmt.Fprintf(g.Stdout, "  %s  %-10s  %s  %9s  %9s  %s%s\n", r.Session, r.Tier, when(r.Activity),
			humanBytes(r.Bytes), humanBytes(r.Artifacts), display.Title(r.Title), flags)
	}
	trash, err := s.TrashList(g.Ctx)
	if err != nil {
		return err
	}
	if len(trash) > 0 {
		fmt.Fprintf(g.Stdout, "trash (cairn storage restore SESSION; purged %d days after the forget):\n", engine.TrashDays)
	}
	for _, t := range trash {
		fmt.Fprintf(g.Stdout, "  %s  forgotten %s  %s\n", t.Session, when(t.At), display.Line(t.Directory))
	}
	return nil
}

// PinCmd pins a session.
type PinCmd struct {
	Session string `arg:"" name:"session" help:"Session id, unique prefix or exact title."`
}

func (c *PinCmd) Run(g *Globals) error { return setPinned(g, c.Session, true) }

// UnpinCmd unpins a session.
type UnpinCmd struct {
	Session string `arg:"" name:"session" help:"Session id, unique prefix or exact title."`
}

func (c *UnpinCmd) Run(g *Globals) error { return setPinned(g, c.Session, false) }

func setPinned(g *Globals, ref string, pinned bool) error {
	id, err := g.findSession(ref)
	if err != nil {
		return err
	}
	s, _ := g.Open()
	ws, err := s.FindSession(g.Ctx, id)
	if err != nil {
		return err
	}
	if err := ws.SetPinned(g.Ctx, id, pinned); err != nil {
		return err
	}
	if g.JSON {
		return g.PrintJSON(map[string]any{"session": id, "pinned": pinned})
	}
	word := "pinned"
	if !pinned {
		word = "unpinned"
	}
	fmt.Fprintf(g.Stdout, "%s %s\n", word, id)
	return nil
}

// RestoreCmd brings a session back from the trash.
type RestoreCmd struct {
	Session string `arg:"" name:"session" help:"The forgotten session's id or a unique prefix of it."`
}

func (c *RestoreCmd) Run(g *Globals) error {
	s, err := g.Open()
	if err != nil {
		return err
	}
	t, err := s.Restore(g.Ctx, c.Session)
	if err != nil {
		return err
	}
	if g.JSON {
		return g.PrintJSON(map[string]any{"session": t.Session, "directory": t.Directory})
	}
	fmt.Fprintf(g.Stdout, "restored %s to %s\n", t.Session, display.Line(t.Directory))
	return nil
}

// PruneCmd prunes.
type PruneCmd struct {
	Remote string `name:"remote" placeholder:"NAME" help:"Prune a remote instead: forgotten sessions' segments, and objects no live session names, once 7 days old."`
}

func (c *PruneCmd) Run(g *Globals) error {
	s, err := g.Open()
	if err != nil {
		return err
	}
	if c.Remote != "" {
		rep, err := s.RemotePrune(g.Ctx, c.Remote)
		if err != nil {
			return err
		}
		if g.JSON {
			return g.PrintJSON(rep)
		}
		fmt.Fprintf(g.Stdout, "pruned remote %s: %d segments of forgotten sessions, %d objects (%s); %d unnamed objects kept until 7 days old\n",
			c.Remote, rep.Segments, rep.Objects, humanBytes(rep.ObjectBytes), rep.Kept)
		return nil
	}
	bar := g.progress("prune")
	rep, err := s.Prune(g.Ctx, engine.PruneOptions{Progress: bar.tell})
	bar.done()
	if err != nil {
		return err
	}
	if g.JSON {
		return g.PrintJSON(rep)
	}
	fmt.Fprintf(g.Stdout, "pruned: %s purged, %s, %s (%s), %s; %s freed\n",
		plural(rep.Trash, "forgotten session", "forgotten sessions"), plural(rep.Orphans, "orphaned file", "orphaned files"),
		plural(rep.Objects, "object", "objects"), humanBytes(rep.ObjectBytes), plural(rep.Temps, "temp file", "temp files"), humanBytes(rep.Freed.Bytes))
	return nil
}

// progressBar draws a bar on the terminal for a long run; on a pipe, or
// with --json, it draws nothing.
type progressBar struct {
	bar  *progressbar.ProgressBar
	what string
	out  io.Writer
}

// progress is a bar for what on stdout when stdout is a terminal.
func (g *Globals) progress(what string) *progressBar {
	f, ok := g.Term.(*os.File)
	if g.JSON || !ok || !xterm.IsTerminal(int(f.Fd())) {
		return &progressBar{}
	}
	return &progressBar{what: what, out: f}
}

func (p *progressBar) tell(done, total int) {
	if p.out == nil || total <= 0 {
		return
	}
	if p.bar == nil {
		p.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(p.out), progressbar.OptionSetDescription(p.what),
			progressbar.OptionClearOnFinish(), progressbar.OptionShowCount(), progressbar.OptionThrottle(100*time.Millisecond))
	}
	p.bar.Set(done)
}

func (p *progressBar) done() {
	if p.bar != nil {
		p.bar.Finish()
	}
}
