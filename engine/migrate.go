package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"cairn/engine/internal/changes"
	"cairn/engine/wskey"
	"cairn/internal/vfs"
	"cairn/objects"
)

// Moving sessions to another directory (cairn migrate-sessions FROM TO).
//
// Every saved session of one exact stored directory moves to another
// directory's workspace folder, ids and conversations kept. Change records
// cannot cross: the user's files stay where they were, so the moved
// session's changes journal starts again with a start line
// (records-contract: {"v":1,"kind":"start","at":T,"why":"moved","from":DIR}),
// and its undo stack and file revert reach back only to the move.
//
// One session moves in this order, each step durable before the next
// (Part of the format: the plan file):
//
//  1. the plan, moves/<id>.json at the top of the state folder:
//     {"v":1,"kind":"move","session":ID,"from":KEY,"to":KEY,"from_path":DIR,"to_path":DIR,"at":T}
//  2. the session's payload objects into the destination's objects/, its
//     tool outputs into outputs/<id>/, its task records and sub-agent
//     transcripts into tasks/<id>/ (after the objects they name), its
//     trail and shell journals, and its changes journal holding only the
//     start line;
//  3. the items journal, its session line naming the new directory and a
//     last line {"v":1,"kind":"moved","at":T,"from":DIR,"to":DIR}: its
//     rename into the destination's sessions/ is the commit;
//  4. the source's files go, the items journal first; the record is
//     rebuilt at the destination; the plan goes last.
//
// Both ownership locks are held throughout, so no process opens the
// session meanwhile. A crash leaves a plan behind: the next Open of the
// store finishes the move when the destination's items journal is there
// (step 3 happened), and otherwise takes the destination's copies away
// (objects stay: they are content-addressed, and a prune takes those no
// line names). A plan whose session lock is held belongs to a move that
// is running, and is left alone.

const movesDir = "moves"

// Line kinds of the move.
const (
	kindMoved = "moved" // the items journal's last line after a move
)

// movePlan is moves/<id>.json.
type movePlan struct {
	V        int    `json:"v"`
	Kind     string `json:"kind"`
	Session  string `json:"session"`
	From     string `json:"from"`
	To       string `json:"to"`
	FromPath string `json:"from_path"`
	ToPath   string `json:"to_path"`
	At       Time   `json:"at"`
}

// MigrateOptions choose what a move takes.
type MigrateOptions struct {
	// Session moves one session only (an id or unique id prefix of the
	// source): it keeps its own counters, and the usage ledger is left
	// attributed to the source (it cannot tell one session's share).
	Session string
	// NoUsage leaves the usage ledger as it is.
	NoUsage bool
	// DryRun says what the move would do, and writes nothing.
	DryRun bool
}

// MigrateResult says what a move did.
type MigrateResult struct {
	From     string   `json:"from"`
	To       string   `json:"to"`
	Sessions []string `json:"sessions"` // the ids moved
	// Usage is what the ledger reattribution did; nil when it was not
	// asked for (a single-session move, NoUsage).
	Usage *UsageMove `json:"usage"`
}

// UsageMove is a reattribution of the usage ledger: its buckets are
// (directory, model); a bucket moved had no counterpart at the
// destination, a bucket merged was added to the destination's. Empty: the
// ledger holds nothing for the source directory.
type UsageMove struct {
	Lines  int  `json:"lines"`
	Moved  int  `json:"moved"`
	Merged int  `json:"merged"`
	Empty  bool `json:"empty"`
}

// MigrateSessions moves the sessions of exact stored directory from (which
// may be gone) to directory to. It refuses (BusyError) when another process
// owns any of them, and (ErrRefused) while from is there and any of them
// has a file revert pending, and moves none then.
func (s *Store) MigrateSessions(ctx context.Context, from, to string, opts MigrateOptions) (*MigrateResult, error) {
	if s.ephemeral {
		return nil, refusedf("an ephemeral store has no saved sessions")
	}
	from = filepath.Clean(from)
	if !filepath.IsAbs(from) {
		abs, err := filepath.Abs(from)
		if err != nil {
			return nil, err
		}
		from = abs
	}
	// The path as stored first: a directory that was renamed may have a
	// link to its new place where it was.
	src := s.workspaceOfPath(from)
	if src == nil {
		if c, err := Canonical(from); err == nil {
			from = c
			src = s.workspaceOfPath(from)
		}
	}
	dst, err := s.Workspace(to)
	if err != nil {
		return nil, err
	}
	if dst.Path() == from {
		return nil, fmt.Errorf("%w: %s is already the directory of those sessions", ErrBadInput, from)
	}
	res := &MigrateResult{From: from, To: dst.Path(), Sessions: []string{}}
	var ids []string
	if src != nil {
		ids = s.sessionsIn(src.dir)
	}
	if opts.Session != "" {
		if src == nil {
			return nil, notFoundf("no sessions were saved in %s", from)
		}
		id, err := src.Resolve(ctx, opts.Session)
		if err != nil {
			return nil, err
		}
		ids = []string{id}
	}
	if len(ids) == 0 && (opts.Session != "" || opts.NoUsage) {
		return nil, notFoundf("no sessions were saved in %s", from)
	}
	if len(ids) == 0 {
		// Only the ledger could move: nothing at all is a mistake (a
		// directory never used, or moved already).
		u, err := s.usageMove(ctx, from, dst.path)
		if err != nil {
			return nil, err
		}
		if u.Empty {
			return nil, notFoundf("no sessions were saved in %s, and the usage ledger holds nothing for it", from)
		}
	}
	if err := src.refusePendingReverts(ids); err != nil {
		return nil, err
	}
	if opts.DryRun {
		res.Sessions = append(res.Sessions, ids...)
		if opts.Session == "" && !opts.NoUsage {
			u, err := s.usageMove(ctx, from, dst.path)
			if err != nil {
				return nil, err
			}
			res.Usage = u
		}
		return res, nil
	}
	// Every lock first: a move refused as busy moves nothing.
	locks := map[string]vfs.Lock{}
	defer func() {
		for id, l := range locks {
			src.release(id, l)
		}
	}()
	for _, id := range ids {
		l, err := src.acquire(id)
		if err != nil {
			return nil, err
		}
		locks[id] = l
	}
	// Again under the locks: a revert may have come since the first look.
	if err := src.refusePendingReverts(ids); err != nil {
		return nil, err
	}
	if len(ids) > 0 {
		if err := dst.ensure(); err != nil {
			return nil, err
		}
		if err := vfs.MkdirAllDurable(s.fsys, movesDir, vfs.DirPerm); err != nil {
			return nil, fmt.Errorf("engine: move: %w", err)
		}
	}
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		p := movePlan{V: 1, Kind: "move", Session: id, From: src.key, To: dst.key, FromPath: from, ToPath: dst.path, At: mkTime(s.Now())}
		l := locks[id]
		delete(locks, id) // moveSession lets it go
		if err := s.moveSession(ctx, p, l); err != nil {
			return res, fmt.Errorf("engine: move session %s: %w", id, err)
		}
		res.Sessions = append(res.Sessions, id)
	}
	if opts.Session == "" && !opts.NoUsage {
		u, err := s.reattributeUsage(ctx, from, dst.path)
		if err != nil {
			return res, err
		}
		res.Usage = u
	}
	return res, nil
}

// refusePendingReverts refuses a move of sessions ids of w when one has a
// file revert pending. Its changes journal keeps what unrevert puts back; a
// move starts that journal again, so the reverted files could never be put
// back. While the directory is there the move is refused (the user
// unreverts, or sends new work to keep the files as they are); once it is
// gone, so are the files to put back.
func (w *Workspace) refusePendingReverts(ids []string) error {
	if len(ids) == 0 || !w.dirThere() {
		return nil
	}
	for _, id := range ids {
		if w.fileRevertPending(id) {
			return refusedf("session %s has a file revert pending: unrevert it (cairn unrevert %s), or send new work to keep the files as they are, then move it", id, id)
		}
	}
	return nil
}

// dirThere reports whether w's directory can be opened, or fails for a
// reason other than not being there.
func (w *Workspace) dirThere() bool {
	_, done, err := w.files()
	if err == nil {
		done()
	}
	return err == nil || !vfs.IsNotExist(err)
}

// workspaceOfPath finds the workspace folder whose workspace.json names
// exactly p (the directory may be gone), or nil.
func (s *Store) workspaceOfPath(p string) *Workspace {
	try := func(key string) *Workspace {
		in, err := wskey.ReadInfo(s.fsys, workspaceDir(key))
		if err != nil || in.Path != p {
			return nil
		}
		return &Workspace{s: s, path: p, key: key, dir: workspaceDir(key), made: true}
	}
	if w := try(wskey.Key(p)); w != nil {
		return w
	}
	ents, _ := s.fsys.ReadDir(workspacesDir)
	for _, e := range ents {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			if w := try(e.Name()); w != nil {
				return w
			}
		}
	}
	return nil
}

// moveSession moves one session whose source lock srcLock this process
// holds, and lets it go.
func (s *Store) moveSession(ctx context.Context, p movePlan, srcLock vfs.Lock) error {
	src := &Workspace{s: s, path: p.FromPath, key: p.From, dir: workspaceDir(p.From), made: true}
	dst := &Workspace{s: s, path: p.ToPath, key: p.To, dir: workspaceDir(p.To), made: true}
	id := p.Session
	b, err := json.Marshal(p)
	if err != nil {
		return err
	}
	if err := vfs.WriteFileAtomic(s.fsys, planName(id), append(b, '\n')); err != nil {
		src.release(id, srcLock)
		return err
	}
	dstLock, err := dst.acquire(id)
	if err != nil {
		src.release(id, srcLock)
		s.rollBackMove(p)
		return err
	}
	if err := s.copySession(ctx, src, dst, p); err != nil {
		// Nothing is committed: the copies go, the session stays.
		dst.release(id, dstLock)
		src.release(id, srcLock)
		s.rollBackMove(p)
		return err
	}
	return s.finishMove(ctx, p, src, dst, srcLock, dstLock)
}

func planName(id string) string { return path.Join(movesDir, id+".json") }

// copySession does steps 2 and 3: everything the session needs at the
// destination, the items journal last.
func (s *Store) copySession(ctx context.Context, src, dst *Workspace, p movePlan) error {
	id := p.Session
	items, err := vfs.ReadFile(s.fsys, itemsName(src.dir, id))
	if err != nil {
		return err
	}
	var shell []byte
	if b, err := vfs.ReadFile(s.fsys, shellName(src.dir, id)); err == nil {
		shell = b
	}
	named := map[string]bool{}
	for _, m := range oidRef.FindAllSubmatch(append(items, shell...), -1) {
		named[string(m[1])] = true
	}
	if err := copyNamedObjects(ctx, src, dst, named); err != nil {
		return err
	}
	if err := copyFolder(ctx, s.fsys, outputDir(src.dir, id), outputDir(dst.dir, id)); err != nil {
		return err
	}
	if err := s.copyTaskFolder(ctx, src, dst, id); err != nil {
		return err
	}
	for _, name := range []func(dir, id string) string{auditName, shellName} {
		if err := copyFile(s.fsys, name(src.dir, id), name(dst.dir, id)); err != nil {
			return err
		}
	}
	start, _ := json.Marshal(struct {
		V    int    `json:"v"`
		Kind string `json:"kind"`
		At   Time   `json:"at"`
		Why  string `json:"why"`
		From string `json:"from"`
	}{1, changes.KindStart, p.At, "moved", p.FromPath}) // where its records start again
	if err := vfs.WriteFileAtomic(s.fsys, changesName(dst.dir, id), append(start, '\n')); err != nil {
		return err
	}
	moved, err := movedItems(items, p)
	if err != nil {
		return err
	}
	return vfs.WriteFileAtomic(s.fsys, itemsName(dst.dir, id), moved)
}

// copyTaskFolder copies session id's tasks folder (its task records and
// sub-agent transcripts, task.go) to dst, after the payload and attachment
// objects the transcripts name (namedObjects reads them a line at a time:
// they can be large).
func (s *Store) copyTaskFolder(ctx context.Context, src, dst *Workspace, id string) error {
	from := taskDir(src.dir, id)
	ents, err := s.fsys.ReadDir(from)
	if vfs.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	named := map[string]bool{}
	for _, e := range ents {
		if !e.Type().IsRegular() || vfs.IsTemp(e.Name()) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := namedObjects(s.fsys, path.Join(from, e.Name()), named); err != nil {
			return fmt.Errorf("engine: read %s: %w", e.Name(), err)
		}
	}
	if err := copyNamedObjects(ctx, src, dst, named); err != nil {
		return err
	}
	return copyFolder(ctx, s.fsys, from, taskDir(dst.dir, id))
}

// copyNamedObjects copies the objects named from src's store to dst's, in
// the order of their ids.
func copyNamedObjects(ctx context.Context, src, dst *Workspace, named map[string]bool) error {
	oids := make([]string, 0, len(named))
	for oid := range named {
		oids = append(oids, oid)
	}
	sort.Strings(oids)
	for _, oid := range oids {
		if err := copyObject(ctx, src.objects(), dst.objects(), oid); err != nil {
			return err
		}
	}
	return nil
}

// movedItems is the items journal as the destination holds it: the session
// line names the new directory, and a moved line ends it. A torn last line
// is left out (a writer would cut it).
func movedItems(items []byte, p movePlan) ([]byte, error) {
	var out bytes.Buffer
	first := true
	for len(items) > 0 {
		i := bytes.IndexByte(items, '\n')
		if i < 0 {
			break // torn
		}
		line := items[:i+1]
		items = items[i+1:]
		if first {
			first = false
			var l itemLine
			if json.Unmarshal(line, &l) == nil && l.Kind == kindSession {
				l.Path = p.ToPath
				b, err := json.Marshal(&l)
				if err != nil {
					return nil, err
				}
				out.Write(b)
				out.WriteByte('\n')
				continue
			}
		}
		out.Write(line)
	}
	b, err := json.Marshal(struct {
		V    int    `json:"v"`
		Kind string `json:"kind"`
		At   Time   `json:"at"`
		From string `json:"from"`
		To   string `json:"to"`
	}{1, kindMoved, p.At, p.FromPath, p.ToPath})
	if err != nil {
		return nil, err
	}
	out.Write(b)
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// finishMove does step 4 once the items journal is at the destination,
// and lets both locks go.
func (s *Store) finishMove(ctx context.Context, p movePlan, src, dst *Workspace, srcLock, dstLock vfs.Lock) error {
	id := p.Session
	fsys := s.fsys
	err := removeDurably(fsys, itemsName(src.dir, id))
	for _, n := range []string{recordName(src.dir, id), changesName(src.dir, id), auditName(src.dir, id), shellName(src.dir, id)} {
		if rerr := fsys.Remove(n); rerr != nil && !vfs.IsNotExist(rerr) && err == nil {
			err = rerr
		}
	}
	for _, dir := range []string{outputDir(src.dir, id), taskDir(src.dir, id)} {
		if rerr := removeFolder(ctx, fsys, dir); rerr != nil && err == nil {
			err = rerr
		}
	}
	if err == nil {
		err = fsys.SyncDir(path.Join(src.dir, "sessions"))
	}
	fsys.Remove(ownersName(src.dir, id))
	fsys.Remove(lockName(src.dir, id)) // held by this process: no one else can be using it
	srcLock.Release()
	if err != nil {
		dst.release(id, dstLock)
		return err // the plan stays: the next open finishes
	}
	dst.rebuildRecord(ctx, id) // derived: a listing rebuilds it if this fails
	dst.release(id, dstLock)
	if err := fsys.Remove(planName(id)); err != nil && !vfs.IsNotExist(err) {
		return err
	}
	return fsys.SyncDir(movesDir)
}

// removeDurably removes name and syncs its folder; a name already gone is
// fine.
func removeDurably(fsys vfs.FS, name string) error {
	if err := fsys.Remove(name); err != nil && !vfs.IsNotExist(err) {
		return err
	}
	return fsys.SyncDir(path.Dir(name))
}

// rollBackMove takes away what an uncommitted move copied to the
// destination (the objects stay), then the plan.
func (s *Store) rollBackMove(p movePlan) error {
	fsys := s.fsys
	dir := workspaceDir(p.To)
	id := p.Session
	var err error
	for _, n := range []string{itemsName(dir, id), recordName(dir, id), changesName(dir, id), auditName(dir, id), shellName(dir, id), ownersName(dir, id), lockName(dir, id)} {
		if rerr := fsys.Remove(n); rerr != nil && !vfs.IsNotExist(rerr) && err == nil {
			err = rerr
		}
	}
	for _, d := range []string{outputDir(dir, id), taskDir(dir, id)} {
		if rerr := removeFolder(context.Background(), fsys, d); rerr != nil && err == nil {
			err = rerr
		}
	}
	if err == nil {
		err = fsys.SyncDir(path.Join(dir, "sessions"))
	}
	if err != nil {
		return err
	}
	if err := fsys.Remove(planName(id)); err != nil && !vfs.IsNotExist(err) {
		return err
	}
	return fsys.SyncDir(movesDir)
}

// recoverMoves finishes or rolls back the moves a crash interrupted (their
// plans are left in moves/), skipping one whose session lock is held (a
// move running in another process). What fails is kept, by plan, for
// Unrecovered and fsck to name, and tried again at the next open.
func (s *Store) recoverMoves() {
	ents, err := s.fsys.ReadDir(movesDir)
	if err != nil {
		if !vfs.IsNotExist(err) {
			s.unrecovered(movesDir, err)
		}
		return
	}
	if len(ents) == 0 {
		return
	}
	vfs.SweepTemps(s.fsys, movesDir) // a plan whose write a crash cut short
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !validSessionID(id) {
			continue
		}
		b, err := vfs.ReadFile(s.fsys, planName(id))
		var p movePlan
		if err != nil || json.Unmarshal(b, &p) != nil || p.Session != id || p.Kind != "move" {
			continue // fsck names it
		}
		src := &Workspace{s: s, path: p.FromPath, key: p.From, dir: workspaceDir(p.From), made: true}
		dst := &Workspace{s: s, path: p.ToPath, key: p.To, dir: workspaceDir(p.To), made: true}
		if !keyName(p.From) || !keyName(p.To) {
			continue // not written by a move: fsck names it
		}
		srcLock, err := src.acquire(id)
		if err != nil {
			if !errors.Is(err, ErrBusy) { // busy: a move running now
				s.unrecovered(planName(id), err)
			}
			continue
		}
		if _, err := s.fsys.Stat(itemsName(dst.dir, id)); err == nil {
			dstLock, err := dst.acquire(id)
			if err != nil {
				src.release(id, srcLock)
				if !errors.Is(err, ErrBusy) {
					s.unrecovered(planName(id), err)
				}
				continue
			}
			if err := s.finishMove(context.Background(), p, src, dst, srcLock, dstLock); err != nil {
				s.unrecovered(planName(id), fmt.Errorf("finish moving session %s to %s: %w", id, p.ToPath, err))
			}
			continue
		}
		if err := s.rollBackMove(p); err != nil {
			s.unrecovered(planName(id), fmt.Errorf("undo moving session %s to %s: %w", id, p.ToPath, err))
		}
		src.release(id, srcLock)
	}
}

// unrecovered keeps why Open could not finish or undo what a crash left
// at name (a file of the state folder).
func (s *Store) unrecovered(name string, err error) {
	s.recoveryErrs = append(s.recoveryErrs, RecoveryError{Path: name, Err: err})
}

// RecoveryError is what Open could not finish or undo of an operation a
// crash interrupted (a session move): the file of the state folder that
// holds it, and why. It is tried again at the next open.
type RecoveryError struct {
	Path string
	Err  error
}

func (e RecoveryError) Error() string {
	return fmt.Sprintf("engine: %s: what a crash interrupted could not be finished (tried again at the next open): %v", e.Path, e.Err)
}

func (e RecoveryError) Unwrap() error { return e.Err }

// Unrecovered is what Open could not finish or undo of the operations a
// crash interrupted; each is tried again at the next open, and fsck names
// it.
func (s *Store) Unrecovered() []RecoveryError { return slices.Clone(s.recoveryErrs) }

// keyName reports whether k can name a workspace folder: one name, not a
// dot name.
func keyName(k string) bool {
	return k != "" && !strings.ContainsAny(k, "/\\\x00") && !strings.HasPrefix(k, ".")
}

// copyObject stores object oid of from in to (a no-op when to has it).
func copyObject(ctx context.Context, from, to *objects.Store, oid string) error {
	id, err := objects.ParseID(oid)
	if err != nil {
		return err
	}
	r, err := from.Get(ctx, id)
	if err != nil {
		if errors.Is(err, objects.ErrNotFound) {
			return nil // already missing: the item stays unavailable, as it was
		}
		return err
	}
	defer r.Close()
	_, err = to.Put(ctx, r)
	return err
}

// copyFolder copies the files of folder from into folder to, each durable.
func copyFolder(ctx context.Context, fsys vfs.FS, from, to string) error {
	ents, err := fsys.ReadDir(from)
	if vfs.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := ensureDir(fsys, to); err != nil {
		return err
	}
	for _, e := range ents {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !e.Type().IsRegular() || vfs.IsTemp(e.Name()) {
			continue
		}
		if err := copyFile(fsys, path.Join(from, e.Name()), path.Join(to, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// copyFile copies file from to name to, durably; a missing from copies
// nothing.
func copyFile(fsys vfs.FS, from, to string) error {
	f, err := fsys.OpenFile(from, os.O_RDONLY, 0)
	if vfs.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	return vfs.WriteAtomic(fsys, to, func(w io.Writer) error {
		_, err := io.Copy(w, f)
		return err
	})
}

// reattributeUsage moves the usage ledger's lines of exact directory from
// to directory to by appending one line (Part of the format):
//
//	{"v":1,"kind":"move","at":T,"from":DIR,"to":DIR}
//
// which a reader applies to every line before it: each (from, model)
// bucket is added to (to, model). The ledger stays append-only — one write
// to a file opened for appending, so no other process's line is lost or
// rewritten, and a crash leaves the line whole or absent — and the lines
// written after it (new work at the old directory) stay where they are.
// Nothing is appended when the ledger holds nothing for from.
func (s *Store) reattributeUsage(ctx context.Context, from, to string) (*UsageMove, error) {
	u, err := s.usageMove(ctx, from, to)
	if err != nil || u.Empty {
		return u, err
	}
	w, err := s.appendLedger(usageMoveLine{V: 1, Kind: "move", At: mkTime(s.Now()), From: from, To: to})
	if err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil { // synced
		return nil, fmt.Errorf("engine: usage ledger: %w", err)
	}
	return u, nil
}

// usageMove says what reattributing from's usage to to would move.
func (s *Store) usageMove(ctx context.Context, from, to string) (*UsageMove, error) {
	sums, err := s.Usage(ctx)
	if err != nil {
		return nil, err
	}
	u := &UsageMove{}
	at := map[string]bool{}
	for _, x := range sums {
		if x.Path == to {
			at[x.Model] = true
		}
	}
	for _, x := range sums {
		if x.Path != from {
			continue
		}
		u.Lines += x.Turns
		if at[x.Model] {
			u.Merged++
		} else {
			u.Moved++
		}
	}
	u.Empty = u.Moved+u.Merged == 0
	return u, nil
}

// usageMoveLine is the ledger's reattribution line (see reattributeUsage).
type usageMoveLine struct {
	V    int    `json:"v"`
	Kind string `json:"kind"`
	At   Time   `json:"at"`
	From string `json:"from"`
	To   string `json:"to"`
}
