package execpolicy

import (
	"errors"
	"testing"
	"time"
)

// TestShell is the seed's shell table, the 120/121 boundary included, in
// both uses.
func TestShell(t *testing.T) {
	pol := func(m Mode, th int) Policy { return Policy{Task: Auto, Shell: m, ThresholdSecs: th} }
	cases := []struct {
		name    string
		p       Policy
		u       Use
		timeout int
		receipt bool
		err     error
	}{
		{"auto, omitted timeout (120) waits", Default(), Persistent, DefaultTimeoutSecs, false, nil},
		{"auto 120 waits", Default(), Persistent, 120, false, nil},
		{"auto 121 returns a receipt", Default(), Persistent, 121, true, nil},
		{"auto 1 waits", Default(), Persistent, 1, false, nil},
		{"auto max returns a receipt", Default(), Persistent, MaxSecs, true, nil},
		{"auto, threshold 30: 30 waits", pol(Auto, 30), Persistent, 30, false, nil},
		{"auto, threshold 30: 31 returns a receipt", pol(Auto, 30), Persistent, 31, true, nil},
		{"auto, threshold 600: 121 waits", pol(Auto, 600), Persistent, 121, false, nil},
		{"sync 121 waits", pol(Sync, 120), Persistent, 121, false, nil},
		{"sync max waits", pol(Sync, 120), Persistent, MaxSecs, false, nil},
		{"async 1 returns a receipt", pol(Async, 120), Persistent, 1, true, nil},
		{"async 120 returns a receipt", pol(Async, 120), Persistent, 120, true, nil},
		{"one-shot auto 121 waits", Default(), OneShot, 121, false, nil},
		{"one-shot sync waits", pol(Sync, 120), OneShot, 500, false, nil},
		{"one-shot async is withheld", pol(Async, 120), OneShot, 5, false, ErrWithheld},
		{"timeout 0 is refused", Default(), Persistent, 0, false, ErrBadTimeout},
		{"negative timeout is refused", Default(), Persistent, -5, false, ErrBadTimeout},
		{"timeout over a week is refused", Default(), Persistent, MaxSecs + 1, false, ErrBadTimeout},
		{"a bad threshold is refused", pol(Auto, 0), Persistent, 5, false, ErrBadTimeout},
		{"a bad mode is refused", pol("later", 120), Persistent, 5, false, ErrBadMode},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := c.p.ShellCall(c.u, c.timeout)
			if !errors.Is(err, c.err) || (c.err != nil) != (err != nil) {
				t.Fatalf("err = %v, want %v", err, c.err)
			}
			if err != nil {
				if d != (Decision{}) {
					t.Fatalf("a refused call decided %+v", d)
				}
				return
			}
			if d.Receipt != c.receipt {
				t.Fatalf("receipt = %v, want %v (%s)", d.Receipt, c.receipt, d.Why)
			}
			// The threshold never extends (or shortens) the hard deadline.
			if want := time.Duration(c.timeout) * time.Second; d.Deadline != want {
				t.Fatalf("deadline = %v, want the requested %v", d.Deadline, want)
			}
		})
	}
}

// TestShellDeadlineNeverExtended walks every timeout around the threshold
// in every mode: the deadline is the request, a receipt is given exactly
// over the threshold under auto.
func TestShellDeadlineNeverExtended(t *testing.T) {
	for _, m := range []Mode{Sync, Auto, Async} {
		for th := 1; th <= 200; th += 37 {
			p := Policy{Task: Auto, Shell: m, ThresholdSecs: th}
			for to := 1; to <= 300; to++ {
				d, err := p.ShellCall(Persistent, to)
				if err != nil {
					t.Fatal(err)
				}
				if d.Deadline != time.Duration(to)*time.Second {
					t.Fatalf("%s th %d to %d: deadline %v", m, th, to, d.Deadline)
				}
				want := m == Async || m == Auto && to > th
				if d.Receipt != want {
					t.Fatalf("%s th %d to %d: receipt %v", m, th, to, d.Receipt)
				}
			}
		}
	}
}

// TestTask is the seed's task table.
func TestTask(t *testing.T) {
	pol := func(m Mode) Policy { return Policy{Task: m, Shell: Auto, ThresholdSecs: 120} }
	cases := []struct {
		name       string
		p          Policy
		u          Use
		background bool
		receipt    bool
		err        error
	}{
		{"auto waits by default", pol(Auto), Persistent, false, false, nil},
		{"auto with background: true returns a receipt", pol(Auto), Persistent, true, true, nil},
		{"sync waits", pol(Sync), Persistent, false, false, nil},
		{"sync refuses background: true", pol(Sync), Persistent, true, false, ErrNoBackground},
		{"async returns a receipt", pol(Async), Persistent, false, true, nil},
		{"async with background: true returns a receipt", pol(Async), Persistent, true, true, nil},
		{"one-shot auto resolves to sync", pol(Auto), OneShot, false, false, nil},
		{"one-shot auto refuses background: true as sync does", pol(Auto), OneShot, true, false, ErrNoBackground},
		{"one-shot async is withheld", pol(Async), OneShot, false, false, ErrWithheld},
		{"a bad mode is refused", pol("soon"), Persistent, false, false, ErrBadMode},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := c.p.TaskCall(c.u, c.background)
			if !errors.Is(err, c.err) || (c.err != nil) != (err != nil) {
				t.Fatalf("err = %v, want %v", err, c.err)
			}
			if d.Receipt != c.receipt {
				t.Fatalf("receipt = %v, want %v", d.Receipt, c.receipt)
			}
			if d.Deadline != 0 {
				t.Fatalf("a task got a deadline %v", d.Deadline)
			}
		})
	}
}

func TestPromoteAndOffers(t *testing.T) {
	for _, c := range []struct {
		m     Mode
		u     Use
		ok    bool
		offer Offer
	}{
		{Auto, Persistent, true, Offer{TaskTool: true, ShellTool: true, BackgroundArg: true, Promotion: true}},
		{Sync, Persistent, false, Offer{TaskTool: true, ShellTool: true}},
		{Async, Persistent, false, Offer{TaskTool: true, ShellTool: true}},
		{Auto, OneShot, false, Offer{TaskTool: true, ShellTool: true}},
		{Async, OneShot, false, Offer{TaskTool: false, ShellTool: true}},
	} {
		p := Policy{Task: c.m, Shell: Auto, ThresholdSecs: 120}
		if err := p.Promote(c.u); (err == nil) != c.ok || err != nil && !errors.Is(err, ErrNoPromotion) {
			t.Errorf("%s use %d: promote = %v", c.m, c.u, err)
		}
		if got := p.Offers(c.u); got != c.offer {
			t.Errorf("%s use %d: offers %+v, want %+v", c.m, c.u, got, c.offer)
		}
	}
	p := Policy{Task: Sync, Shell: Async, ThresholdSecs: 120}
	if got := p.Offers(OneShot); got.ShellTool || !got.TaskTool {
		t.Errorf("one-shot shell async must withhold the shell tool only: %+v", got)
	}
}

func TestParse(t *testing.T) {
	for _, s := range []string{"sync", "auto", "async"} {
		if m, err := ParseMode(s); err != nil || string(m) != s {
			t.Errorf("ParseMode(%q) = %q, %v", s, m, err)
		}
	}
	for _, s := range []string{"", "Auto", "SYNC", "background", " sync"} {
		if _, err := ParseMode(s); !errors.Is(err, ErrBadMode) {
			t.Errorf("ParseMode(%q) = %v, want ErrBadMode", s, err)
		}
	}
	if err := Default().Check(); err != nil {
		t.Fatal(err)
	}
	if err := (Policy{Task: Auto, Shell: "x", ThresholdSecs: 5}).Check(); !errors.Is(err, ErrBadMode) {
		t.Fatalf("Check = %v", err)
	}
}
