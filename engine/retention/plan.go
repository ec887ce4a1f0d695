package retention

import (
	"slices"
	"time"
)

// Actions a plan is made for.
const (
	Trim   = "trim"   // to the transcript tier
	Forget = "forget" // into the trash
)

// Grouping of the sessions a policy decides over (storage.retention's
// group_by).
const (
	GroupByDirectory = "directory" // each workspace's sessions apart
	GroupByNone      = "none"      // all sessions of the state folder at once
)

// Plan is what a trim or a forget does, group by group.
type Plan struct {
	Action string
	Groups []Group
	// Skipped names the sessions a run found open (or pinned) when their
	// turn came, and those a forget found an older forgotten session of
	// the same id in the trash for (filled in by the run; a plan has none).
	Skipped []Entry
}

// Group is one group's decisions: Directory is the workspace's path, ""
// when sessions are grouped by none.
type Group struct {
	Directory string
	Keep      []Entry
	Remove    []Entry
}

// Entry is one session in a plan.
type Entry struct {
	Session   string
	Directory string
	Title     string
	Activity  time.Time
	Reasons   []string // why it is kept; empty for a removal
	Bytes     int64    // for a trim's removal: the artifact bytes it drops
	Key       string   // its workspace key
}

// Removals counts the sessions the plan removes.
func (p *Plan) Removals() int {
	n := 0
	for _, g := range p.Groups {
		n += len(g.Remove)
	}
	return n
}

// Session is one session a plan is made over: a Candidate and what a plan
// says of it.
type Session struct {
	Candidate
	Directory, Key, Title string
	// Trimmed reports whether it is a transcript session holding nothing a
	// trim drops: a trim keeps it as it is. Asked only of a trim's
	// removals.
	Trimmed func() bool
	// Bytes is what a trim of it drops, asked only of a trim's removals.
	Bytes func() int64
}

// entry is s as an entry of a plan.
func (s Session) entry() Entry {
	return Entry{Session: s.ID, Directory: s.Directory, Title: s.Title, Activity: s.Activity, Key: s.Key}
}

// Make is the plan of action over sessions under policy p at now: groups
// by directory, or one group when groupBy is GroupByNone, in order of
// their directory; in each, the decisions of Decide, newest first.
func Make(action string, sessions []Session, p Policy, groupBy string, now time.Time, loc *time.Location) *Plan {
	groups := map[string][]Session{}
	var order []string
	for _, s := range sessions {
		g := s.Directory
		if groupBy == GroupByNone {
			g = ""
		}
		if _, ok := groups[g]; !ok {
			order = append(order, g)
		}
		groups[g] = append(groups[g], s)
	}
	slices.Sort(order)
	plan := &Plan{Action: action}
	for _, g := range order {
		list := groups[g]
		byID := map[string]Session{}
		cands := make([]Candidate, len(list))
		for i, s := range list {
			cands[i], byID[s.ID] = s.Candidate, s
		}
		group := Group{Directory: g}
		for _, d := range Decide(cands, p, now, loc) {
			s := byID[d.ID]
			e := s.entry()
			e.Activity = d.Activity
			switch {
			case d.Keep:
				e.Reasons = d.Reasons
				group.Keep = append(group.Keep, e)
			case action == Trim && s.Trimmed():
				// Already trimmed, and nothing ran since: kept as it is.
				e.Reasons = []string{"transcript"}
				group.Keep = append(group.Keep, e)
			default:
				if action == Trim {
					e.Bytes = s.Bytes()
				}
				group.Remove = append(group.Remove, e)
			}
		}
		plan.Groups = append(plan.Groups, group)
	}
	return plan
}

// Named is the plan of action over sessions named by the user, whatever a
// policy says: each is removed unless it is always kept (Candidate.Always),
// grouped by directory in order. The caller has checked that none is
// pinned.
func Named(action string, sessions []Session) *Plan {
	groups := map[string]*Group{}
	var order []string
	for _, s := range sessions {
		g := groups[s.Directory]
		if g == nil {
			g = &Group{Directory: s.Directory}
			groups[s.Directory] = g
			order = append(order, s.Directory)
		}
		e := s.entry()
		if keep, why := s.Always(); keep {
			e.Reasons = why
			g.Keep = append(g.Keep, e)
			continue
		}
		if action == Trim {
			e.Bytes = s.Bytes()
		}
		g.Remove = append(g.Remove, e)
	}
	slices.Sort(order)
	plan := &Plan{Action: action}
	for _, d := range order {
		plan.Groups = append(plan.Groups, *groups[d])
	}
	return plan
}

// Options say what a trim or a forget works on.
type Options struct {
	Action  string // Trim or Forget
	Policy  Policy // used when Sessions is empty
	GroupBy string // GroupByDirectory (the default) or GroupByNone
	// Sessions, when set, are removed whatever the policy: ids. A pinned
	// one is refused; one that is open is kept.
	Sessions []string
	Location *time.Location // period boundaries; nil is time.Local
	// Progress, when set, is told how many removals are done of how many.
	Progress func(done, total int)
}

// Select is the plan of opt over sessions: the policy's (Make) when opt
// names no session, else Named's over those it names. A named session that
// sessions lack comes back as missing, a pinned one as pinned, and the
// plan then removes nothing.
func Select(opt Options, sessions []Session, now time.Time) (plan *Plan, missing, pinned string) {
	loc := opt.Location
	if loc == nil {
		loc = time.Local
	}
	if len(opt.Sessions) == 0 {
		return Make(opt.Action, sessions, opt.Policy, opt.GroupBy, now, loc), "", ""
	}
	byID := make(map[string]Session, len(sessions))
	for _, s := range sessions {
		byID[s.ID] = s
	}
	named := make([]Session, 0, len(opt.Sessions))
	for _, id := range opt.Sessions {
		s, ok := byID[id]
		switch {
		case !ok:
			return &Plan{Action: opt.Action}, id, ""
		case s.Flags&Pinned != 0:
			return &Plan{Action: opt.Action}, "", id
		}
		named = append(named, s)
	}
	return Named(opt.Action, named), "", ""
}
