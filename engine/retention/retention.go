package retention

import "time"

// Flags are the reasons a session is kept whatever a policy says.
type Flags uint8

// The flags. A candidate with any of them is always kept.
const (
	Pinned        Flags = 1 << iota // the user pinned it
	Open                            // an owner has it open
	PendingRevert                   // a file revert of it is not settled
	FutureDated                     // its activity is later than now
)

// Candidate is one session as a retention policy sees it.
type Candidate struct {
	ID       string
	Activity time.Time // the later of its last write and its last open
	Flags    Flags
	Tags     []string // for restic's keep_tags only; sessions have none
}

// Decision is a policy's answer for one candidate: whether it is kept,
// and the rules or flags that keep it ("pinned", "keep_last 3").
type Decision struct {
	ID       string
	Activity time.Time
	Keep     bool
	Reasons  []string
}

// Always reports whether c is kept whatever the policy, and why.
func (c Candidate) Always() (bool, []string) {
	var why []string
	for _, f := range []struct {
		flag Flags
		name string
	}{{Pinned, "pinned"}, {Open, "open"}, {PendingRevert, "pending revert"}, {FutureDated, "future-dated"}} {
		if c.Flags&f.flag != 0 {
			why = append(why, f.name)
		}
	}
	return len(why) > 0, why
}
