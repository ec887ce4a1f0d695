package engine

import (
	"errors"
	"path"
	"path/filepath"
	"sync"
	"time"

	"cairn/engine/internal/ephroot"
	"cairn/engine/internal/history"
	"cairn/engine/internal/outputs"
	"cairn/engine/internal/remote"
	"cairn/engine/internal/scope"
	"cairn/engine/internal/shellproc"
	"cairn/engine/wskey"
	"cairn/internal/vfs"
)

// Store is an open state folder: every workspace's sessions, the prompt
// history and the usage ledger.
type Store struct {
	home string
	fsys vfs.FS
	disk *vfs.Disk // nil when the store runs on a test filesystem
	now  func() time.Time

	ephemeral bool
	ephRoot   *ephroot.Root                    // the temporary root an ephemeral store owns
	ledger    *Store                           // where usage goes when this store is ephemeral
	wsfs      func(dir string) (vfs.FS, error) // opens a workspace's files (wsfs.go); nil: the real disk
	usageMu   sync.Mutex
	objs      sync.Map // workspace objects folder -> *objects.Store (Workspace.objects)

	ephemeralRoot string // where OpenEphemeral makes its root ("": the temp folder)
	eagerLoadMB   int    // the load ceiling set by WithMaxEagerLoadMB (0: config.json's)
	outputCap     int64  // a tool output's cap when tests lower it (0: maxOutputSize)
	// walkRead is what recording's walks read workspaces through, when
	// tests fail its calls (scope.FaultyReader); nil: the system's.
	walkRead scope.Reader

	// What this store's sessions are doing, kept here rather than in
	// process globals: an embedder may open many stores, and each is
	// garbage once closed.
	outputsCleaned sync.Map      // workspace folder -> struct{}: orphan outputs cleaned (package outputs)
	outputNames    outputs.Names // output names being written (package outputs)
	shellLive      sync.Map      // shell journal name -> *shell.Log of a session open here, or shellClosed (shell.go)
	taskLive       sync.Map      // task records name -> *taskLog of a session open here, or taskClosed (task.go)
	hist           history.Log   // what AddHistory last read of history.jsonl (history.go)

	callLocks sync.Map // workspace folder -> *callLock held shared by running calls (calls_lock.go)
	// forker starts the sessions' shell lines from a thread of its own,
	// which ends at Close: its lines die then, as with the process.
	forker shellproc.Forker
	// recoveryErrs is what Open could not finish or undo of what a crash
	// interrupted (migrate.go); set before Open returns, read-only after.
	recoveryErrs []RecoveryError

	remote remote.Link // the default remote, opened when first needed (remote_link.go)

	canonOnce sync.Once
	canonHome string // the state folder's canonical path, resolved once (canonicalHome)
}

// Option changes how Open works.
type Option func(*Store)

// WithClock makes the store read time from now (tests control time).
func WithClock(now func() time.Time) Option { return func(s *Store) { s.now = now } }

// WithMaxEagerLoadMB sets the ceiling, in MB of payloads, of a session this
// store opens, over storage.max_eager_load_mb of config.json (the cairn
// command passes $CAIRN_MAX_EAGER_LOAD_MB). mb <= 0 leaves config.json's.
func WithMaxEagerLoadMB(mb int) Option { return func(s *Store) { s.eagerLoadMB = mb } }

// Open opens the state folder home, creating it (0700) and its FORMAT file
// when missing. A state folder of a newer format is refused with ErrFormat.
func Open(home string, opts ...Option) (*Store, error) {
	d, err := openHome(home)
	if err != nil {
		return nil, err
	}
	s := &Store{home: d.Dir(), fsys: d, disk: d, now: time.Now}
	for _, o := range opts {
		o(s)
	}
	s.recoverMoves() // moves a crash interrupted (migrate.go)
	s.recoverPlans() // forgets, restores and trims a crash interrupted (retention_plans.go)
	return s, nil
}

// OpenFS opens a store on any filesystem (an in-memory or fault-injecting
// one in tests). home is only used in messages. The filesystem seam is
// internal to cairn: a runtime outside it uses Open.
func OpenFS(fsys vfs.FS, home string, opts ...Option) (*Store, error) {
	if err := checkFormat(fsys, home); err != nil {
		return nil, err
	}
	s := &Store{home: home, fsys: fsys, now: time.Now}
	for _, o := range opts {
		o(s)
	}
	s.recoverMoves() // moves a crash interrupted (migrate.go)
	s.recoverPlans() // forgets, restores and trims a crash interrupted (retention_plans.go)
	return s, nil
}

// Home is the absolute path of the state folder.
func (s *Store) Home() string { return s.home }

// FS is the state folder as a filesystem, for cairn's own packages (the
// HTTP API's credentials) and tests.
func (s *Store) FS() vfs.FS { return s.fsys }

// Close releases the state folder.
func (s *Store) Close() error {
	var err error
	if s.disk != nil {
		err = s.disk.Close()
	}
	// After the folder: a call lock taken meanwhile is in the map, and
	// none can be opened since.
	s.closeCallLocks()
	s.forker.Close()
	if s.ledger != nil {
		s.ledger.Close()
	}
	s.remote.Close()
	if r := s.ephRoot; r != nil {
		s.ephRoot = nil
		if rerr := r.Remove(); err == nil {
			err = rerr
		}
	}
	return err
}

// canonicalHome is the state folder's canonical path (Canonical), or its
// path as opened when it cannot be resolved. It is resolved once: the
// store's files stay the folder opened at Open whatever links change later,
// and each file-tool call asks for it.
func (s *Store) canonicalHome() string {
	s.canonOnce.Do(func() {
		s.canonHome = s.home
		if c, err := Canonical(s.home); err == nil {
			s.canonHome = c
		}
	})
	return s.canonHome
}

// Now is the store's clock, in UTC with millisecond precision as on disk.
func (s *Store) Now() time.Time { return s.now().UTC().Truncate(time.Millisecond) }

// Canonical is the canonical absolute form of dir, symbolic links
// resolved (wskey.Canonical); anything but a directory is ErrBadInput.
func Canonical(dir string) (string, error) { return wskey.Canonical(dir) }

// Location says where a directory's state lives (wskey.Location).
type Location = wskey.Location

const workspacesDir = "workspaces"

// Where says which workspace folder holds the state of dir, without creating
// anything (it may rewrite a damaged workspace.json, and says so in Note).
func (s *Store) Where(dir string) (Location, error) {
	p, err := Canonical(dir)
	if err != nil {
		return Location{}, err
	}
	key, note, repaired, err := s.resolveFolder(p, false)
	switch {
	case errors.Is(err, wskey.ErrNoWorkspace):
		key = wskey.Key(p)
	case errors.Is(err, ErrRefused):
		// The directory's own folder holds another directory's sessions
		// (workspace_info.go): where says which folder and why.
		key, note = wskey.Key(p), err.Error()
	case err != nil:
		return Location{}, err
	}
	if repaired != "" {
		note = repaired
	}
	return Location{Path: p, Key: key, Folder: filepath.Join(s.home, workspacesDir, key), Note: note}, nil
}

// workspaceDir is the fsys-relative folder of a workspace key.
func workspaceDir(key string) string { return path.Join(workspacesDir, key) }

func isNotExist(err error) bool { return vfs.IsNotExist(err) }
