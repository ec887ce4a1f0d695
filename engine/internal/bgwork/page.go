package bgwork

import (
	"encoding/base64"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
)

// Paging of List. Part of the task_control contract.
const (
	// PageSize is a page's length when the call gives no limit.
	PageSize = 20
	// MaxPage is the longest page a call may ask for.
	MaxPage = 200
)

// Page is one page of List: work newest first, and the cursor of the next
// page ("" on the last).
type Page struct {
	Works []Work `json:"tasks"`
	Next  string `json:"next,omitempty"`
}

// List is a page of the work of s, newest admission first: the first page
// for cursor "", else the page after the one that returned cursor. limit
// 0 means PageSize. A cursor names a place in admission order, so work
// admitted after the first page never shifts the pages after it: it shows
// on a new first page. Settled and archived work is listed with the rest.
func (s *State) List(cursor string, limit int) (Page, error) {
	switch {
	case limit == 0:
		limit = PageSize
	case limit < 0 || limit > MaxPage:
		return Page{}, fmt.Errorf("%w: a page holds 1 to %d entries, not %d", ErrInvalid, MaxPage, limit)
	}
	before := len(s.works) + 1
	if cursor != "" {
		n, err := decodeCursor(cursor)
		if err != nil {
			return Page{}, err
		}
		before = min(n, before)
	}
	p := Page{Works: []Work{}}
	i := before - 2 // works[i].Order == i+1
	for ; i >= 0 && len(p.Works) < limit; i-- {
		p.Works = append(p.Works, s.works[i].copy())
	}
	if i >= 0 {
		p.Next = encodeCursor(s.works[i+1].Order)
	}
	return p, nil
}

// cursorPrefix starts every cursor, before it is encoded: its version.
const cursorPrefix = "bg1:"

// encodeCursor is the cursor of the page of work admitted before order.
// It is opaque to its users: base64 of "bg1:", the order, "." and a check
// of both, so that a cursor edited by hand is refused rather than taken
// for another place.
func encodeCursor(order int) string {
	s := cursorPrefix + strconv.Itoa(order)
	return base64.RawURLEncoding.EncodeToString([]byte(s + "." + cursorCheck(s)))
}

func cursorCheck(s string) string {
	h := fnv.New32a()
	h.Write([]byte(s))
	return strconv.FormatUint(uint64(h.Sum32()), 36)
}

func decodeCursor(c string) (int, error) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err == nil {
		s, check, _ := strings.Cut(string(b), ".")
		if rest, ok := strings.CutPrefix(s, cursorPrefix); ok && check == cursorCheck(s) {
			if n, err := strconv.Atoi(rest); err == nil && n >= 1 && strconv.Itoa(n) == rest {
				return n, nil
			}
		}
	}
	return 0, fmt.Errorf("%w: %q is not a cursor that list returned: pass next back as it was given", ErrInvalid, c)
}

// Status is work id with its deliveries, made and owed.
type Status struct {
	Work
	Deliveries []Delivery `json:"deliveries"`
}

// Status is the status of work id.
func (s *State) Status(id string) (Status, error) {
	w, ok := s.Work(id)
	if !ok {
		if !validID(id) {
			return Status{}, fmt.Errorf("%w: %q is not a task id", ErrInvalid, id)
		}
		return Status{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	d := s.Deliveries(id)
	if d == nil {
		d = []Delivery{}
	}
	return Status{Work: w, Deliveries: d}, nil
}

// List is State.List over the ledger as it stands, without copying it.
func (l *Ledger) List(cursor string, limit int) (Page, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.st.List(cursor, limit)
}

// Status is State.Status over the ledger as it stands.
func (l *Ledger) Status(id string) (Status, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.st.Status(id)
}

// Query is State.Query over the ledger as it stands.
func (l *Ledger) Query(q Request) (Answer, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.st.Query(q)
}
