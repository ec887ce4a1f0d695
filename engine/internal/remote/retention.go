package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"cairn/engine/retention"
	"cairn/objects"
)

// Retention on a remote runs the same policies as on a state folder,
// over the sessions the remote's log describes (a session's activity is
// its card's updated_at). A forget writes the session's tombstone,
//
//	tombstones/<session>.json  {"v":1,"session":ID,"machine":M,"at":T}
//
// and a log entry naming it, before it deletes anything: a machine that
// reads the log, or finds the tombstone, never pushes the session again,
// and a forget cut short is finished by the next prune. A session whose
// lease is live (open on some machine) is kept. A prune removes the
// segments of tombstoned sessions and every object that no live
// session's journal names, whichever machine wrote it, once it is older
// than the grace by the server's clock (an object goes up before the
// segment that names it: a push under way is never robbed). A segment
// that cannot be read stops it from removing any object: it cannot tell.

// ForgetReport says what a remote forget kept and removed.
type ForgetReport struct {
	Keep   []retention.Decision `json:"keep"`
	Remove []retention.Decision `json:"remove"`
	DryRun bool                 `json:"dry_run,omitempty"`
}

type tombstone struct {
	V       int    `json:"v"`
	Session string `json:"session"`
	Machine string `json:"machine"`
	At      string `json:"at"`
}

// Forget forgets the sessions the policy does not keep (or ids, when
// given, whatever the policy).
func (s *Syncer) Forget(ctx context.Context, p retention.Policy, ids []string, dryRun bool) (*ForgetReport, error) {
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	defer s.end()
	cards, err := s.cards(ctx)
	if err != nil {
		return nil, err
	}
	var cands []retention.Candidate
	for _, c := range cards {
		at, _ := time.Parse(time.RFC3339Nano, c.UpdatedAt)
		cand := retention.Candidate{ID: c.ID, Activity: at}
		if l, age, err := ReadLease(ctx, s.Bucket, s.Machine, c.ID); err == nil && l != nil && !l.Released && age < time.Duration(l.TTLms)*time.Millisecond {
			cand.Flags |= retention.Open
		}
		cands = append(cands, cand)
	}
	var decisions []retention.Decision
	if len(ids) > 0 {
		want := map[string]bool{}
		for _, id := range ids {
			want[id] = true
		}
		for _, c := range cands {
			if !want[c.ID] {
				continue
			}
			delete(want, c.ID)
			keep, why := c.Always()
			decisions = append(decisions, retention.Decision{ID: c.ID, Activity: c.Activity, Keep: keep, Reasons: why})
		}
		for id := range want {
			return nil, fmt.Errorf("remote: %w: session %s is not on the remote", ErrNotFound, id)
		}
	} else {
		decisions = retention.Decide(cands, p, s.now(), time.Local)
	}
	rep := &ForgetReport{Keep: []retention.Decision{}, Remove: []retention.Decision{}, DryRun: dryRun}
	var gone []string
	for _, d := range decisions {
		if d.Keep {
			rep.Keep = append(rep.Keep, d)
			continue
		}
		rep.Remove = append(rep.Remove, d)
		gone = append(gone, d.ID)
	}
	if dryRun || len(gone) == 0 {
		return rep, nil
	}
	at := s.now().Format("2006-01-02T15:04:05.000Z")
	for _, id := range gone {
		b, _ := json.Marshal(tombstone{V: 1, Session: id, Machine: s.Machine, At: at})
		if err := putBytes(ctx, s.Bucket, tombKey(id), b, Cond{IfAbsent: true}); err != nil && !errors.Is(err, ErrExists) {
			return rep, err
		}
	}
	if err := s.writeLog(ctx, &logEntry{Forgets: gone}); err != nil {
		return rep, err
	}
	for _, id := range gone {
		s.st.touch(id)
		s.st.Forgotten[id] = true
		delete(s.st.Pending, id)
		delete(s.st.Cards, id)
	}
	if err := s.st.Save(s.Local.FS(), s.Name); err != nil {
		return rep, err
	}
	for _, id := range gone {
		for _, prefix := range []string{journalsPref + id + "/", outputsPrefix + id + "/"} {
			if err := s.deleteUnder(ctx, prefix); err != nil {
				return rep, err
			}
		}
		s.Bucket.Delete(ctx, leaseKey(id))
	}
	return rep, nil
}

func (s *Syncer) deleteUnder(ctx context.Context, prefix string) error {
	var keys []string
	if err := s.Bucket.List(ctx, prefix, func(e Entry) error { keys = append(keys, e.Key); return nil }); err != nil {
		return err
	}
	return s.each(ctx, len(keys), func(ctx context.Context, i int) error {
		err := s.Bucket.Delete(ctx, keys[i])
		if errors.Is(err, ErrNotFound) {
			return nil
		}
		return err
	})
}

// PruneReport says what a remote prune removed.
type PruneReport struct {
	Segments    int   `json:"segments"`
	Objects     int   `json:"objects"`
	ObjectBytes int64 `json:"object_bytes"`
	Kept        int   `json:"kept_young"` // unnamed objects kept for their age
}

// DefaultGrace is how old an unnamed object must be before a prune
// removes it.
const DefaultGrace = 7 * 24 * time.Hour

// Prune removes tombstoned sessions' leftovers and unnamed objects older
// than grace.
func (s *Syncer) Prune(ctx context.Context, grace time.Duration) (*PruneReport, error) {
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	defer s.end()
	rep := &PruneReport{}
	tombs := map[string]bool{}
	err := s.Bucket.List(ctx, tombsPrefix, func(e Entry) error {
		tombs[strings.TrimSuffix(strings.TrimPrefix(e.Key, tombsPrefix), ".json")] = true
		return nil
	})
	if err != nil {
		return nil, err
	}
	var live, dead []string
	err = s.Bucket.List(ctx, journalsPref, func(e Entry) error {
		id, _, _, _, ok := parseSegmentKey(e.Key)
		if ok && tombs[id] {
			dead = append(dead, e.Key)
		} else {
			live = append(live, e.Key)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, k := range dead {
		if err := s.Bucket.Delete(ctx, k); err != nil && !errors.Is(err, ErrNotFound) {
			return rep, err
		}
		rep.Segments++
	}
	named := map[objects.ID]bool{}
	for _, k := range live {
		data, _, err := s.Bucket.Get(ctx, k)
		if err != nil {
			return rep, fmt.Errorf("remote: prune removes no object: segment %s cannot be read, so it cannot tell which objects are named: %w", k, err)
		}
		namedObjects(data, named)
	}
	now, err := ServerNow(ctx, s.Bucket, s.Machine)
	if err != nil {
		return rep, err
	}
	type victim struct {
		key  string
		size int64
	}
	var victims []victim
	err = s.Bucket.List(ctx, objectsPrefix, func(e Entry) error {
		id, _, ok := parseObjectKey(e.Key)
		if !ok || named[id] {
			return nil
		}
		if now.Sub(e.ModTime) < grace {
			rep.Kept++
			return nil
		}
		victims = append(victims, victim{e.Key, e.Size})
		return nil
	})
	if err != nil {
		return rep, err
	}
	for _, v := range victims {
		if err := s.Bucket.Delete(ctx, v.key); err != nil && !errors.Is(err, ErrNotFound) {
			return rep, err
		}
		rep.Objects++
		rep.ObjectBytes += v.size
	}
	return rep, nil
}

// FsckReport says what a check of a remote found.
type FsckReport struct {
	Remote   string   `json:"remote"`
	Objects  int      `json:"objects"`
	Segments int      `json:"segments"`
	Journals int      `json:"journals"`
	Bytes    int64    `json:"bytes"`
	Problems []string `json:"problems"`
}

// Fsck reads the whole remote: every object hashes to its name, every
// journal's segments of its newest generation follow each other from its
// first byte, hold whole lines of JSON, and name only objects the remote
// holds; every lease and log entry reads.
func Fsck(ctx context.Context, b Bucket, progress func(done, total int)) (*FsckReport, error) {
	rep := &FsckReport{Problems: []string{}}
	bad := func(format string, a ...any) { rep.Problems = append(rep.Problems, fmt.Sprintf(format, a...)) }
	var objKeys, segKeys []Entry
	if err := b.List(ctx, objectsPrefix, func(e Entry) error { objKeys = append(objKeys, e); return nil }); err != nil {
		return nil, err
	}
	if err := b.List(ctx, journalsPref, func(e Entry) error { segKeys = append(segKeys, e); return nil }); err != nil {
		return nil, err
	}
	total := len(objKeys) + len(segKeys)
	done := 0
	tick := func() {
		done++
		if progress != nil {
			progress(done, total)
		}
	}
	have := map[objects.ID]bool{}
	for _, e := range objKeys {
		tick()
		id, z, ok := parseObjectKey(e.Key)
		if !ok {
			bad("%s is not an object's name", e.Key)
			continue
		}
		rc, err := b.Open(ctx, e.Key)
		if err != nil {
			bad("%s cannot be read: %v", e.Key, err)
			continue
		}
		_, err = objects.CheckStored(id, z, rc)
		rc.Close()
		switch {
		case errors.Is(err, objects.ErrMismatch):
			bad("%s does not hold its object: %v", e.Key, err)
		case err != nil:
			bad("%s cannot be read whole: %v", e.Key, err)
		default:
			have[id] = true
			rep.Objects++
			rep.Bytes += e.Size
		}
	}
	type jkey struct {
		id, file string
	}
	gens := map[jkey]map[int][]Entry{}
	for _, e := range segKeys {
		id, file, gen, _, ok := parseSegmentKey(e.Key)
		if !ok {
			tick()
			bad("%s is not a segment's name", e.Key)
			continue
		}
		k := jkey{id, file}
		if gens[k] == nil {
			gens[k] = map[int][]Entry{}
		}
		gens[k][gen] = append(gens[k][gen], e)
	}
	keys := make([]jkey, 0, len(gens))
	for k := range gens {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i].id < keys[j].id || keys[i].id == keys[j].id && keys[i].file < keys[j].file
	})
	for _, k := range keys {
		rep.Journals++
		newest := -1
		for g := range gens[k] {
			newest = max(newest, g)
		}
		for g, segs := range gens[k] {
			sort.Slice(segs, func(i, j int) bool { return segs[i].Key < segs[j].Key })
			var end int64
			for _, e := range segs {
				tick()
				_, _, _, off, _ := parseSegmentKey(e.Key)
				if g == newest && off != end {
					bad("journal %s of session %s: generation %d has a gap before byte %d (its segments end at %d)", k.file, k.id, g, off, end)
				}
				end = off + e.Size
				data, _, err := b.Get(ctx, e.Key)
				if err != nil {
					bad("%s cannot be read: %v", e.Key, err)
					continue
				}
				rep.Segments++
				if len(data) == 0 || data[len(data)-1] != '\n' {
					bad("%s does not end at a line's end", e.Key)
				}
				for n, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
					if !json.Valid([]byte(line)) {
						bad("%s line %d is not JSON", e.Key, n+1)
					}
				}
				named := map[objects.ID]bool{}
				namedObjects(data, named)
				for id := range named {
					if !have[id] {
						bad("%s names object %s, which the remote does not hold (whole)", e.Key, id)
					}
				}
			}
		}
	}
	err := b.List(ctx, leasesPrefix, func(e Entry) error {
		if strings.Contains(strings.TrimPrefix(e.Key, leasesPrefix), "/") {
			return nil // the clock and probe keys
		}
		data, _, err := b.Get(ctx, e.Key)
		var l Lease
		if err != nil || json.Unmarshal(data, &l) != nil || !validID(l.Session) {
			bad("lease %s cannot be read", e.Key)
		}
		return nil
	})
	return rep, err
}
