package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A file remote is a folder, file:///path, each key a file at its path
// under it (objects/ab/cdef…), written to a temporary name beside it
// (<key>.<random>.tmp), synced, and renamed into place, so a reader sees
// a key whole or not at all, even after a power cut. A key's version is its modification time and
// size ("<hex ns>-<hex size>", with the quotes of an ETag). The folder
// is the layout gocloud.dev's fileblob driver wrote, which earlier builds
// used, so a remote written by one reads in the other. It is plain Go: the
// engine's own import graph holds no object-store SDK (provider.go says
// why).
//
// Creating if absent and replacing if unchanged take an flock on
// .cairn-lock in the folder (fileLock), which holds across processes and,
// on a filesystem that shares locks, across machines: the check and the
// rename cannot interleave with another writer's. The lock file and
// temporary files are never listed as keys.
type folderBucket struct {
	dir  string
	lock fileLock
	// syncFile and syncDir, when set, stand for fileSync and dirSync (tests
	// watch them).
	syncFile func(*os.File) error
	syncDir  func(string) error
}

const (
	fileLockName = ".cairn-lock"
	fileTempExt  = ".tmp"
)

func openFile(ctx context.Context, u *url.URL) (Bucket, error) {
	dir := filepath.FromSlash(u.Path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	return &folderBucket{dir: dir, lock: fileLock(filepath.Join(dir, fileLockName))}, nil
}

// errBadKey: a key that is not a clean relative path (cairn makes none).
var errBadKey = errors.New("not a key a file remote keeps")

// path is the file of key: a clean slash-separated relative path, with no
// empty, "." or ".." element and no control character or backslash, so it
// cannot leave the folder.
func (b *folderBucket) path(key string) (string, error) {
	for _, el := range strings.Split(key, "/") {
		if el == "" || el == "." || el == ".." {
			return "", errBadKey
		}
	}
	if strings.ContainsFunc(key, func(r rune) bool { return r < 0x20 || r == '\\' || r == 0x7f }) {
		return "", errBadKey
	}
	return filepath.Join(b.dir, filepath.FromSlash(key)), nil
}

func fileErr(op, key string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrNotExist):
		return &Error{Op: op, Key: key, Err: ErrNotFound, Cause: err}
	case errors.Is(err, fs.ErrPermission):
		return &Error{Op: op, Key: key, Err: ErrRefused, Cause: err}
	}
	return &Error{Op: op, Key: key, Err: err}
}

func fileAttrs(info fs.FileInfo) Attrs {
	return Attrs{Size: info.Size(), ModTime: info.ModTime(),
		Version: fmt.Sprintf("\"%x-%x\"", info.ModTime().UnixNano(), info.Size())}
}

// openKey opens key's file for reading, with its attributes; a folder is
// no key.
func (b *folderBucket) openKey(ctx context.Context, op, key string) (*os.File, Attrs, error) {
	if err := ctx.Err(); err != nil {
		return nil, Attrs{}, err
	}
	p, err := b.path(key)
	if err != nil {
		return nil, Attrs{}, fileErr(op, key, err)
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, Attrs{}, fileErr(op, key, err)
	}
	info, err := f.Stat()
	if err == nil && info.IsDir() {
		err = fs.ErrNotExist
	}
	if err != nil {
		f.Close()
		return nil, Attrs{}, fileErr(op, key, err)
	}
	return f, fileAttrs(info), nil
}

func (b *folderBucket) Get(ctx context.Context, key string) ([]byte, Attrs, error) {
	f, a, err := b.openKey(ctx, "get", key)
	if err != nil {
		return nil, Attrs{}, err
	}
	defer f.Close()
	data := make([]byte, 0, a.Size)
	buf := bytes.NewBuffer(data)
	if _, err := buf.ReadFrom(f); err != nil {
		return nil, Attrs{}, fileErr("get", key, err)
	}
	return buf.Bytes(), a, nil
}

func (b *folderBucket) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	f, _, err := b.openKey(ctx, "get", key)
	if err != nil {
		return nil, err
	}
	return f, nil
}

func (b *folderBucket) Attrs(ctx context.Context, key string) (Attrs, error) {
	f, a, err := b.openKey(ctx, "stat", key)
	if err != nil {
		return Attrs{}, err
	}
	f.Close()
	return a, nil
}

func (b *folderBucket) Put(ctx context.Context, key string, r io.Reader, size int64, c Cond) error {
	p, err := b.path(key)
	if err != nil {
		return fileErr("put", key, err)
	}
	if !c.IfAbsent && c.IfVersion == "" {
		return fileErr("put", key, b.write(ctx, p, r, nil))
	}
	unlock, err := b.lock.lock(ctx)
	if err != nil {
		return &Error{Op: "put", Key: key, Err: err}
	}
	defer unlock()
	// The check runs under the lock, after the new content is in its
	// temporary file, just before the rename.
	check := func() error {
		a, err := b.Attrs(ctx, key)
		switch {
		case err == nil && c.IfAbsent:
			return &Error{Op: "put", Key: key, Err: ErrExists}
		case err == nil && a.Version != c.IfVersion:
			return &Error{Op: "put", Key: key, Err: ErrChanged}
		case errors.Is(err, ErrNotFound) && c.IfVersion != "":
			return &Error{Op: "put", Key: key, Err: ErrChanged}
		case err != nil && !errors.Is(err, ErrNotFound):
			return err
		}
		return nil
	}
	err = b.write(ctx, p, r, check)
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return fileErr("put", key, err)
}

// write puts r at p: a temporary file beside it, synced, renamed into
// place once check (when set) passes, and the folder synced, so that once
// write returns the key survives a power cut whole (a log entry or lease
// naming it may be read by another machine at once). New folders on the
// way are synced into their parents too.
func (b *folderBucket) write(ctx context.Context, p string, r io.Reader, check func() error) error {
	dir := filepath.Dir(p)
	if err := b.mkdirDurable(dir); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, filepath.Base(p)+".*"+fileTempExt)
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // gone already once renamed
	_, err = io.Copy(f, r)
	if err == nil {
		err = b.fileSync(f)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = ctx.Err()
	}
	if err == nil && check != nil {
		err = check()
	}
	if err != nil {
		return err
	}
	if err := os.Rename(f.Name(), p); err != nil {
		return err
	}
	return b.dirSync(dir)
}

// mkdirDurable makes folder dir under the remote's folder, syncing the
// folder that holds each one it makes.
func (b *folderBucket) mkdirDurable(dir string) error {
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	var made []string
	for d := dir; d != b.dir && len(d) > len(b.dir); d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			break
		}
		made = append(made, d)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for i := len(made) - 1; i >= 0; i-- {
		if err := b.dirSync(filepath.Dir(made[i])); err != nil {
			return err
		}
	}
	return nil
}

// fileSync and dirSync make a file's content, and a folder's entries,
// durable.
func (b *folderBucket) fileSync(f *os.File) error {
	if b.syncFile != nil {
		return b.syncFile(f)
	}
	return f.Sync()
}

func (b *folderBucket) dirSync(dir string) error {
	if b.syncDir != nil {
		return b.syncDir(dir)
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

func (b *folderBucket) List(ctx context.Context, prefix string, fn func(Entry) error) error {
	root := b.dir
	if i := strings.LastIndex(prefix, "/"); i >= 0 {
		p, err := b.path(prefix[:i])
		if err != nil {
			return fileErr("list", prefix, err)
		}
		root = p
	}
	var out []Entry
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root && errors.Is(err, fs.ErrNotExist) {
				return nil // nothing under the prefix
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, _ := filepath.Rel(b.dir, p)
		key := filepath.ToSlash(rel)
		if d.IsDir() {
			// A folder whose keys cannot match the prefix is not walked.
			if p != root && !strings.HasPrefix(key+"/", prefix) && !strings.HasPrefix(prefix, key+"/") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasPrefix(key, prefix) || key == fileLockName || strings.HasSuffix(key, fileTempExt) {
			return nil
		}
		info, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil // deleted meanwhile
		}
		if err != nil {
			return err
		}
		out = append(out, Entry{Key: key, Size: info.Size(), ModTime: info.ModTime()})
		return nil
	})
	if err != nil {
		return fileErr("list", prefix, err)
	}
	// Keys in key order: a walk goes folder by folder, and "a-b" comes
	// before "a/b" as a key but after it in the walk.
	slices.SortFunc(out, func(x, y Entry) int { return strings.Compare(x.Key, y.Key) })
	for _, e := range out {
		if err := fn(e); err != nil {
			return err
		}
	}
	return nil
}

func (b *folderBucket) Delete(ctx context.Context, key string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	p, err := b.path(key)
	if err != nil {
		return fileErr("delete", key, err)
	}
	info, err := os.Lstat(p)
	if err == nil && info.IsDir() {
		err = fs.ErrNotExist
	}
	if err == nil {
		err = os.Remove(p)
	}
	return fileErr("delete", key, err)
}

func (b *folderBucket) Close() error { return nil }
