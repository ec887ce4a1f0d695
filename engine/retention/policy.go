package retention

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Policy is a retention policy in restic forget's vocabulary: a session
// is kept when any rule keeps it. A count of -1 is unlimited, 0 is off.
type Policy struct {
	Last, Hourly, Daily, Weekly, Monthly, Yearly int

	Within                                                               Duration
	WithinHourly, WithinDaily, WithinWeekly, WithinMonthly, WithinYearly Duration

	// Tags keeps a candidate that has every tag of one of its groups
	// (restic's keep_tags). cairn's sessions carry no tags, so config
	// has no key for it; it is here so restic's own cases run whole.
	Tags [][]string
}

// Names are the policy's rule names, in config's and the flags' order.
var names = [...]string{"keep_last", "keep_hourly", "keep_daily", "keep_weekly", "keep_monthly", "keep_yearly",
	"keep_within", "keep_within_hourly", "keep_within_daily", "keep_within_weekly", "keep_within_monthly", "keep_within_yearly"}

// Names lists the rule names a Policy accepts (Set), in order.
func Names() []string { return names[:] }

// IsWithin reports whether rule name takes a duration (else a count).
func IsWithin(name string) bool { return strings.HasPrefix(name, "keep_within") }

// Empty reports whether p has no rule: it decides nothing, and Decide
// keeps every candidate.
func (p Policy) Empty() bool {
	return p.Last == 0 && p.Hourly == 0 && p.Daily == 0 && p.Weekly == 0 && p.Monthly == 0 && p.Yearly == 0 &&
		p.Within.Zero() && p.WithinHourly.Zero() && p.WithinDaily.Zero() && p.WithinWeekly.Zero() &&
		p.WithinMonthly.Zero() && p.WithinYearly.Zero() && len(p.Tags) == 0
}

func (p *Policy) count(name string) *int {
	return map[string]*int{"keep_last": &p.Last, "keep_hourly": &p.Hourly, "keep_daily": &p.Daily,
		"keep_weekly": &p.Weekly, "keep_monthly": &p.Monthly, "keep_yearly": &p.Yearly}[name]
}

func (p *Policy) within(name string) *Duration {
	return map[string]*Duration{"keep_within": &p.Within, "keep_within_hourly": &p.WithinHourly,
		"keep_within_daily": &p.WithinDaily, "keep_within_weekly": &p.WithinWeekly,
		"keep_within_monthly": &p.WithinMonthly, "keep_within_yearly": &p.WithinYearly}[name]
}

// Set sets rule name from its text: a count ("20", "-1" for unlimited,
// "0" for off) or a duration ("90d"). The error says what is wrong
// without naming where the value came from.
func (p *Policy) Set(name, value string) error {
	if d := p.within(name); d != nil {
		v, err := ParseDuration(value)
		if err != nil {
			return err
		}
		*d = v
		return nil
	}
	if c := p.count(name); c != nil {
		if value == "unlimited" { // restic's spelling of -1 on its command line
			value = "-1"
		}
		n, err := strconv.Atoi(value)
		if err != nil || n < -1 || n > 1<<31 {
			return fmt.Errorf("%q is not a count: a whole number, -1 (or unlimited) for all", value)
		}
		*c = n
		return nil
	}
	return fmt.Errorf("unknown rule %q: one of %s", name, strings.Join(names[:], ", "))
}

// String writes p's rules as "keep_last 20, keep_within 90d", or "none".
func (p Policy) String() string {
	var parts []string
	for _, n := range names {
		if d := p.within(n); d != nil && !d.Zero() {
			parts = append(parts, n+" "+d.String())
		} else if c := p.count(n); c != nil && *c != 0 {
			parts = append(parts, n+" "+strconv.Itoa(*c))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// A bucket groups activity times into periods, named by the rule's
// period; it keeps the newest candidate of each.
type bucket string

const (
	lastB    bucket = "last"
	hourlyB  bucket = "hourly"
	dailyB   bucket = "daily"
	weeklyB  bucket = "weekly"
	monthlyB bucket = "monthly"
	yearlyB  bucket = "yearly"
)

// key names t's period; "last" gives each walk position a period of its
// own.
func (b bucket) key(t time.Time, pos int) int {
	switch b {
	case hourlyB:
		return t.Year()*1000000 + int(t.Month())*10000 + t.Day()*100 + t.Hour()
	case dailyB:
		return t.Year()*10000 + int(t.Month())*100 + t.Day()
	case weeklyB:
		y, w := t.ISOWeek()
		return y*100 + w
	case monthlyB:
		return t.Year()*100 + int(t.Month())
	case yearlyB:
		return t.Year()
	}
	return pos
}

// Apply is restic forget's walk over cands, exactly: newest first (a
// stable sort, so equal times keep their order in cands), every rule
// tried on every candidate, each kept one with every rule that kept it.
// Period keys are taken in loc (natural local boundaries: hours on the
// hour, days at midnight, ISO weeks from Monday). The within rules count
// back from the newest activity that is not after now, so a group left
// alone keeps what it had. Flags are not looked at (Decide does) and an
// empty policy keeps nothing, as restic's does. The decisions come in
// walk order.
func Apply(cands []Candidate, p Policy, now time.Time, loc *time.Location) []Decision {
	list := slices.Clone(cands)
	slices.SortStableFunc(list, func(a, b Candidate) int { return b.Activity.Compare(a.Activity) })
	var latest time.Time
	for _, c := range list {
		if !c.Activity.After(now) && c.Activity.After(latest) {
			latest = c.Activity
		}
	}
	if latest.IsZero() {
		latest = now
	}
	latest = latest.In(loc)

	type counted struct {
		bucket
		left int
		last int
		used bool
	}
	counts := []*counted{{bucket: lastB, left: p.Last}, {bucket: hourlyB, left: p.Hourly}, {bucket: dailyB, left: p.Daily},
		{bucket: weeklyB, left: p.Weekly}, {bucket: monthlyB, left: p.Monthly}, {bucket: yearlyB, left: p.Yearly}}
	type windowed struct {
		bucket
		d      Duration
		cutoff time.Time
		last   int
		used   bool
	}
	var windows []*windowed
	for _, w := range []struct {
		b bucket
		d Duration
	}{{hourlyB, p.WithinHourly}, {dailyB, p.WithinDaily}, {weeklyB, p.WithinWeekly}, {monthlyB, p.WithinMonthly}, {yearlyB, p.WithinYearly}} {
		if !w.d.Zero() {
			windows = append(windows, &windowed{bucket: w.b, d: w.d, cutoff: w.d.Before(latest)})
		}
	}
	withinCut := p.Within.Before(latest)

	out := make([]Decision, 0, len(list))
	for pos, c := range list {
		t := c.Activity.In(loc)
		oldest := pos == len(list)-1
		var why []string
		for _, group := range p.Tags {
			if hasAll(c.Tags, group) {
				why = append(why, "has tags ["+strings.Join(group, ", ")+"]")
			}
		}
		if !p.Within.Zero() && t.After(withinCut) {
			why = append(why, "within "+p.Within.String())
		}
		for _, b := range counts {
			if b.left == 0 {
				continue
			}
			k := b.key(t, pos)
			if b.used && k == b.last && !oldest {
				continue
			}
			name := string(b.bucket)
			if b.used && k == b.last {
				name = "oldest " + name
			}
			why = append(why, name)
			b.last, b.used = k, true
			if b.left > 0 {
				b.left--
			}
		}
		for _, w := range windows {
			if !t.After(w.cutoff) {
				continue
			}
			k := w.key(t, pos)
			if w.used && k == w.last && !oldest {
				continue
			}
			name := string(w.bucket) + " within " + w.d.String()
			if w.used && k == w.last {
				name = "oldest " + name
			}
			why = append(why, name)
			w.last, w.used = k, true
		}
		out = append(out, Decision{ID: c.ID, Activity: c.Activity, Keep: len(why) > 0, Reasons: why})
	}
	return out
}

func hasAll(tags, group []string) bool {
	for _, g := range group {
		if g == "" && len(tags) == 0 {
			continue
		}
		if !slices.Contains(tags, g) {
			return false
		}
	}
	return true
}

// Decide is a policy's decision for each candidate, in walk order: the
// always-kept flags first (pinned, open, pending revert, future-dated),
// each a reason of its own, then Apply's rules. An empty policy removes
// nothing: every candidate is kept, for the reason "no policy", so that
// nothing is ever deleted unless the user asked for it.
func Decide(cands []Candidate, p Policy, now time.Time, loc *time.Location) []Decision {
	if p.Empty() {
		list := slices.Clone(cands)
		slices.SortStableFunc(list, func(a, b Candidate) int { return b.Activity.Compare(a.Activity) })
		out := make([]Decision, len(list))
		for i, c := range list {
			_, why := c.withFuture(now).Always()
			out[i] = Decision{ID: c.ID, Activity: c.Activity, Keep: true, Reasons: append(why, "no policy")}
		}
		return out
	}
	byID := map[string]Candidate{}
	for _, c := range cands {
		byID[c.ID] = c
	}
	out := Apply(cands, p, now, loc)
	for i, d := range out {
		if keep, why := byID[d.ID].withFuture(now).Always(); keep {
			out[i].Keep = true
			out[i].Reasons = append(why, d.Reasons...)
		}
	}
	return out
}

// withFuture is c with FutureDated set when its activity is after now.
func (c Candidate) withFuture(now time.Time) Candidate {
	if c.Activity.After(now) {
		c.Flags |= FutureDated
	}
	return c
}
