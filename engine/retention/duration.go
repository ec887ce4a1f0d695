package retention

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Duration is a calendar duration of years, months, days and hours, the
// keep_within rules' unit: "2y5m7d3h". m is months, never minutes.
type Duration struct {
	Years, Months, Days, Hours int
}

// Zero reports whether d is unset.
func (d Duration) Zero() bool { return d == Duration{} }

// String writes d the way ParseDuration reads it, zero parts left out
// ("1y2m3d3h", "13d23h"), as restic prints a duration.
func (d Duration) String() string {
	var b strings.Builder
	for _, p := range []struct {
		n int
		u string
	}{{d.Years, "y"}, {d.Months, "m"}, {d.Days, "d"}, {d.Hours, "h"}} {
		if p.n != 0 {
			b.WriteString(strconv.Itoa(p.n))
			b.WriteString(p.u)
		}
	}
	if b.Len() == 0 {
		return "0h"
	}
	return b.String()
}

// Before is the instant d before t: years, months and days as calendar
// steps in t's location (time.AddDate, normalised: 31 March less a month
// is 3 March), then the hours as exact hours.
func (d Duration) Before(t time.Time) time.Time {
	return t.AddDate(-d.Years, -d.Months, -d.Days).Add(-time.Duration(d.Hours) * time.Hour)
}

// maxPart bounds one part, so that a typo cannot overflow the date maths.
const maxPart = 100000

// ParseDuration reads a sequence of number+unit parts, units y (years),
// m (months), d (days) and h (hours), in any order, each at most once
// per unit summed: "90d", "2y5m7d3h", "1y1d1m". Weeks are refused by name,
// because "w" is a common guess: write 7d.
func ParseDuration(s string) (Duration, error) {
	var d Duration
	if s == "" {
		return d, fmt.Errorf(`empty duration: write one like "90d" or "2y5m7d3h"`)
	}
	num := -1
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			if num < 0 {
				num = 0
			}
			num = num*10 + int(c-'0')
			if num > maxPart {
				return Duration{}, fmt.Errorf("duration %q: %s is too large", s, s[:i+1])
			}
		case c == 'w' || c == 'W':
			return Duration{}, fmt.Errorf("duration %q: weeks (w) are not accepted, write 7d for a week", s)
		case c == 'y' || c == 'm' || c == 'd' || c == 'h':
			if num < 0 {
				return Duration{}, fmt.Errorf("duration %q: %q has no number before it", s, string(c))
			}
			switch c {
			case 'y':
				d.Years += num
			case 'm':
				d.Months += num
			case 'd':
				d.Days += num
			case 'h':
				d.Hours += num
			}
			num = -1
		default:
			return Duration{}, fmt.Errorf("duration %q: %q is not a unit: use y (years), m (months), d (days) and h (hours), as in 2y5m7d3h", s, string(c))
		}
	}
	if num >= 0 {
		return Duration{}, fmt.Errorf("duration %q: the last number has no unit: use y, m, d or h, as in 90d", s)
	}
	return d, nil
}
