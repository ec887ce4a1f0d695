package overlap

import "slices"

// Call is a call of a session as the unit rules see it: its scope, the
// unit it belongs to ("" while it is alone), its place among the unit's
// calls in the order they began, and whether it ended.
type Call struct {
	Name  string
	Scope Scope
	Unit  string
	Seq   int
	Ended bool
}

// Joined is what a call beginning now does among the calls of its
// session that are running or wait for their unit to end.
type Joined struct {
	// Unit is the unit the call belongs to, "" when it overlaps no call
	// whose scope meets its own: it keeps its own record.
	Unit string
	// Seq is its place in the unit: after every call there.
	Seq int
	// Moved is the calls that join the unit with it (calls alone until
	// now, or of another unit its scope met too), with their new unit.
	Moved []Call
	// Seen: the call is not workspace-wide and a workspace-wide call of
	// the unit began before it. The caller then notes which of the files
	// it holds a whole-workspace walk covers (Member.Seen).
	Seen bool
}

// Join places a call of scope sc beginning now among calls: it joins
// every running call alone whose scope meets sc, and every unit that
// still has a running call and a call (running or ended) whose scope meets
// sc; they all become one unit. A unit is named by newID when the call
// makes a new one, else it keeps the name of the first unit it joins.
func Join(calls []Call, sc Scope, newID func() string) Joined {
	live := map[string]bool{}
	for _, c := range calls {
		if c.Unit != "" && !c.Ended {
			live[c.Unit] = true
		}
	}
	units := map[string]bool{}
	var alone []Call
	var order []string
	for _, c := range calls {
		switch {
		case !sc.Intersects(c.Scope):
		case c.Unit == "" && !c.Ended:
			alone = append(alone, c)
		case c.Unit != "" && live[c.Unit] && !units[c.Unit]:
			units[c.Unit] = true
			order = append(order, c.Unit)
		}
	}
	if len(alone) == 0 && len(order) == 0 {
		return Joined{}
	}
	var j Joined
	if len(order) > 0 {
		j.Unit = order[0]
	} else {
		j.Unit = newID()
	}
	for _, c := range calls {
		in := c.Unit != "" && units[c.Unit] || c.Unit == "" && slices.ContainsFunc(alone, func(a Call) bool { return a.Name == c.Name })
		if !in {
			continue
		}
		j.Seq = max(j.Seq, c.Seq+1)
		if !sc.Workspace && c.Scope.Workspace {
			j.Seen = true
		}
		if c.Unit != j.Unit {
			c.Unit = j.Unit
			j.Moved = append(j.Moved, c)
		}
	}
	return j
}

// Last reports whether call name is the only running call of unit: its
// end ends the unit.
func Last(calls []Call, unit, name string) bool {
	for _, c := range calls {
		if c.Unit == unit && c.Name != name && !c.Ended {
			return false
		}
	}
	return true
}

// Mark is what a pending call's marker says of its unit. Part of the
// format (engine: overlap.go draws the marker):
//
//	"unit":UID, "seq":N, "seen":[P...], "ended":BOOL, "rec":SNAP
//
// Unit names the unit ("" while the call is alone), Seq is its place in
// the order the unit's calls began, Seen is Member.Seen; Ended: the call
// ended (its own line is written; Rec names a file tool's change line)
// and waits for the unit's end.
type Mark struct {
	Unit  string   `json:"unit,omitempty"`
	Seq   int      `json:"seq,omitempty"`
	Seen  []string `json:"seen,omitempty"`
	Ended bool     `json:"ended,omitempty"`
	Rec   string   `json:"rec,omitempty"`
}
