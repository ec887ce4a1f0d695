package vfs

import (
	"io/fs"
	"os"
	"path"
	"sync"
	"syscall"
)

// Op is a kind of filesystem operation a Faulty can fail.
type Op int

// The operations. File methods map to them too: Read and ReadAt to OpRead,
// Write to OpWrite, Sync (and SyncDir) to OpSync, Truncate to OpTruncate,
// Stat to OpStat. Seek, Close and Lock.Release are never failed.
const (
	OpAny      Op = iota // matches every operation
	OpOpen               // OpenFile without O_CREATE
	OpCreate             // OpenFile with O_CREATE
	OpRead               // File.Read, File.ReadAt
	OpWrite              // File.Write
	OpSync               // File.Sync, SyncDir
	OpRename             // Rename and Exchange
	OpRemove             // Remove
	OpMkdir              // MkdirAll
	OpStat               // Stat, Lstat, Readlink, File.Stat
	OpReadDir            // ReadDir
	OpTruncate           // File.Truncate
	OpChmod              // Chmod
	OpSymlink            // Symlink
	OpLock               // Lock
)

var opNames = [...]string{"any", "open", "create", "read", "write", "sync", "rename", "remove",
	"mkdir", "stat", "readdir", "truncate", "chmod", "symlink", "lock"}

func (o Op) String() string {
	if o >= 0 && int(o) < len(opNames) {
		return opNames[o]
	}
	return "op?"
}

// Rule says which calls of a Faulty fail, and how.
type Rule struct {
	Op Op // the operation; OpAny (the zero Op) for all
	// Path is a path.Match pattern matched against the name the call is
	// given (for file methods, the name the file was opened with; for
	// Rename, either name). "" matches any.
	Path  string
	Skip  int   // let this many matching calls pass first
	Count int   // fail this many matching calls, then stop; 0 = forever
	Err   error // the error, wrapped in a *fs.PathError; nil means syscall.EIO
}

// Faults is a set of rules saying which calls of a seam fail, and how, with
// a count of the calls seen. Faulty checks every call of an FS against its
// Faults; a read-only seam elsewhere (the workspace walker's, package
// scope's FaultyReader) checks its calls against one too, so every fault
// test speaks the same words: an Op, a path pattern, Skip and Count.
type Faults struct {
	mu    sync.Mutex
	rules []*ruleState
	calls [len(opNames)]int
}

type ruleState struct {
	Rule
	seen, failed int
}

// Inject adds a rule. The first rule that matches a call and has failures
// left decides it.
func (f *Faults) Inject(r Rule) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rules = append(f.rules, &ruleState{Rule: r})
}

// Reset removes all rules. Call counts are kept.
func (f *Faults) Reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rules = nil
}

// Calls returns how many calls of op the Faults have seen, failed or not;
// Calls(OpAny) counts all.
func (f *Faults) Calls(op Op) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if op < 0 || int(op) >= len(f.calls) {
		return 0
	}
	return f.calls[op]
}

// Check counts a call of op on names and returns the error of the rule
// that fails it (a *fs.PathError naming names[0]), or nil.
func (f *Faults) Check(op Op, names ...string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls[op]++
	f.calls[OpAny]++
	for _, r := range f.rules {
		if r.Op != OpAny && r.Op != op || !r.matches(names) {
			continue
		}
		if r.seen++; r.seen <= r.Skip {
			continue
		}
		if r.Count > 0 && r.failed >= r.Count {
			continue
		}
		r.failed++
		err := r.Err
		if err == nil {
			err = syscall.EIO
		}
		return &fs.PathError{Op: op.String(), Path: names[0], Err: err}
	}
	return nil
}

func (r *ruleState) matches(names []string) bool {
	if r.Path == "" {
		return true
	}
	for _, n := range names {
		if ok, _ := path.Match(r.Path, n); ok {
			return true
		}
	}
	return false
}

// Faulty wraps an FS and fails the calls that match its rules (its
// Faults), before they reach the wrapped FS: a failed call changes
// nothing. A failed File.Write writes nothing and returns 0 with the
// error, which is how a full disk (syscall.ENOSPC) shows when not even a
// part of a write fits. Files it returns are wrapped, so their calls are
// checked too.
//
// Faulty has no WriteAtomic method of its own, so WriteAtomic over a Faulty
// takes the generic path (CreateTemp, Write, Sync, Close, Rename, SyncDir),
// and each step can be failed.
type Faulty struct {
	Faults
	inner FS
}

// NewFaulty wraps inner with no rules: every call passes through.
func NewFaulty(inner FS) *Faulty { return &Faulty{inner: inner} }

func (f *Faulty) OpenFile(name string, flag int, perm fs.FileMode) (File, error) {
	op := OpOpen
	if flag&os.O_CREATE != 0 {
		op = OpCreate
	}
	if err := f.Check(op, name); err != nil {
		return nil, err
	}
	return f.wrap(f.inner.OpenFile(name, flag, perm))
}

func (f *Faulty) wrap(file File, err error) (File, error) {
	if err != nil {
		return nil, err
	}
	return &faultyFile{File: file, f: f}, nil
}

func (f *Faulty) Stat(name string) (fs.FileInfo, error) {
	if err := f.Check(OpStat, name); err != nil {
		return nil, err
	}
	return f.inner.Stat(name)
}

func (f *Faulty) Lstat(name string) (fs.FileInfo, error) {
	if err := f.Check(OpStat, name); err != nil {
		return nil, err
	}
	return f.inner.Lstat(name)
}

func (f *Faulty) ReadDir(name string) ([]fs.DirEntry, error) {
	if err := f.Check(OpReadDir, name); err != nil {
		return nil, err
	}
	return f.inner.ReadDir(name)
}

func (f *Faulty) MkdirAll(name string, perm fs.FileMode) error {
	if err := f.Check(OpMkdir, name); err != nil {
		return err
	}
	return f.inner.MkdirAll(name, perm)
}

func (f *Faulty) Remove(name string) error {
	if err := f.Check(OpRemove, name); err != nil {
		return err
	}
	return f.inner.Remove(name)
}

func (f *Faulty) Rename(oldname, newname string) error {
	if err := f.Check(OpRename, oldname, newname); err != nil {
		return err
	}
	return f.inner.Rename(oldname, newname)
}

// Exchange injects as Rename does, then swaps with the wrapped FS.
func (f *Faulty) Exchange(a, b string) error {
	if err := f.Check(OpRename, a, b); err != nil {
		return err
	}
	return Exchange(f.inner, a, b)
}

func (f *Faulty) SyncDir(name string) error {
	if err := f.Check(OpSync, name); err != nil {
		return err
	}
	return f.inner.SyncDir(name)
}

func (f *Faulty) Symlink(oldname, newname string) error {
	if err := f.Check(OpSymlink, newname); err != nil {
		return err
	}
	return f.inner.Symlink(oldname, newname)
}

func (f *Faulty) Readlink(name string) (string, error) {
	if err := f.Check(OpStat, name); err != nil {
		return "", err
	}
	return f.inner.Readlink(name)
}

// Touch passes to the inner FS (Toucher), failing where Chmod would.
func (f *Faulty) Touch(name string) error {
	if err := f.Check(OpChmod, name); err != nil {
		return err
	}
	return Touch(f.inner, name)
}

func (f *Faulty) Chmod(name string, mode fs.FileMode) error {
	if err := f.Check(OpChmod, name); err != nil {
		return err
	}
	return f.inner.Chmod(name, mode)
}

func (f *Faulty) Lock(name string) (Lock, error) {
	if err := f.Check(OpLock, name); err != nil {
		return nil, err
	}
	l, err := f.inner.Lock(name)
	if err != nil {
		return nil, err
	}
	return &faultyLock{Lock: l, file: &faultyFile{File: l.File(), f: f}}, nil
}

// faultyFile is a File of a Faulty.
type faultyFile struct {
	File
	f *Faulty
}

func (ff *faultyFile) Read(p []byte) (int, error) {
	if err := ff.f.Check(OpRead, ff.Name()); err != nil {
		return 0, err
	}
	return ff.File.Read(p)
}

func (ff *faultyFile) ReadAt(p []byte, off int64) (int, error) {
	if err := ff.f.Check(OpRead, ff.Name()); err != nil {
		return 0, err
	}
	return ff.File.ReadAt(p, off)
}

// Write writes nothing when failed.
func (ff *faultyFile) Write(p []byte) (int, error) {
	if err := ff.f.Check(OpWrite, ff.Name()); err != nil {
		return 0, err
	}
	return ff.File.Write(p)
}

func (ff *faultyFile) Sync() error {
	if err := ff.f.Check(OpSync, ff.Name()); err != nil {
		return err
	}
	return ff.File.Sync()
}

func (ff *faultyFile) Truncate(size int64) error {
	if err := ff.f.Check(OpTruncate, ff.Name()); err != nil {
		return err
	}
	return ff.File.Truncate(size)
}

func (ff *faultyFile) Stat() (fs.FileInfo, error) {
	if err := ff.f.Check(OpStat, ff.Name()); err != nil {
		return nil, err
	}
	return ff.File.Stat()
}

// faultyLock is a Lock of a Faulty, whose file is checked too.
type faultyLock struct {
	Lock
	file *faultyFile
}

func (l *faultyLock) File() File { return l.file }
