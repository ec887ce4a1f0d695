package fstate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"

	"cairn/internal/vfs"
	"cairn/objects"
)

// Sink turns a file's content into its F: storing it (durable on return),
// keeping it inline, or only hashing it (HashSink).
type Sink func(b []byte, mode string) (*State, error)

// StoreSink stores content as an object in objs, durable on return; nil
// when objs is nil (no usable store).
func StoreSink(ctx context.Context, objs *objects.Store) Sink {
	if objs == nil {
		return nil
	}
	return func(b []byte, mode string) (*State, error) {
		info, err := objs.PutBytes(ctx, b)
		if err != nil {
			return nil, err
		}
		return &State{OID: info.ID.String(), Size: int64(len(b)), Mode: mode}, nil
	}
}

// InlineSink keeps content of at most MaxInline bytes inline (a copy, as
// the line that holds it is durable) and stores larger content in objs.
func InlineSink(ctx context.Context, objs *objects.Store) Sink {
	store := StoreSink(ctx, objs)
	if store == nil {
		return nil
	}
	return func(b []byte, mode string) (*State, error) {
		if len(b) > MaxInline {
			return store(b, mode)
		}
		f, _ := HashSink(b, mode)
		if len(b) > 0 {
			f.Data = b
		}
		return f, nil
	}
}

// HashSink only hashes content: the identity a comparison needs.
func HashSink(b []byte, mode string) (*State, error) {
	h := sha256.Sum256(b)
	return &State{SHA256: hex.EncodeToString(h[:]), Size: int64(len(b)), Mode: mode}, nil
}

// Capture reads the state of workspace file rel without following a final
// symbolic link, and puts its content through put. An absent file is nil.
// A file it cannot capture is a skipped F, with the error that says why.
// Without put (no usable store) an existing file is skipped "store failed".
func Capture(ctx context.Context, fsys vfs.FS, put Sink, rel string, limit int64) (*State, error) {
	if err := ctx.Err(); err != nil {
		return &State{Skipped: SkipUnreadable}, err
	}
	fi, err := fsys.Lstat(rel)
	if vfs.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return &State{Skipped: SkipUnreadable}, err
	}
	var data []byte
	var mode string
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		t, err := fsys.Readlink(rel)
		if err != nil {
			return &State{Skipped: SkipUnreadable}, err
		}
		data, mode = []byte(t), ModeLink
	case fi.Mode().IsRegular():
		if fi.Size() > limit {
			return &State{Skipped: SkipTooLarge, Size: fi.Size()}, fmt.Errorf("%d bytes, max_file_bytes is %d", fi.Size(), limit)
		}
		f, err := fsys.OpenFile(rel, os.O_RDONLY, 0)
		if err != nil {
			return &State{Skipped: SkipUnreadable, Size: fi.Size()}, err
		}
		data, err = vfs.ReadSized(f, fi.Size(), limit)
		f.Close()
		if err != nil {
			return &State{Skipped: SkipUnreadable, Size: fi.Size()}, err
		}
		if int64(len(data)) > limit {
			return &State{Skipped: SkipTooLarge, Size: int64(len(data))}, fmt.Errorf("more than max_file_bytes %d", limit)
		}
		mode = PermMode(fi.Mode().Perm())
	default:
		return &State{Skipped: SkipNotFile, Size: fi.Size()}, fmt.Errorf("%s is not a file", rel)
	}
	if put == nil {
		return &State{Skipped: SkipStore, Size: int64(len(data))}, ErrNoStore
	}
	ref, err := put(data, mode)
	if err != nil {
		return &State{Skipped: SkipStore, Size: int64(len(data))}, err
	}
	if mode != ModeLink {
		ref.Perm = PermString(fi.Mode().Perm())
	}
	return ref, nil
}

// Holds reads workspace file rel through fsys (hashing only, up to limit
// bytes) and reports whether it holds one of want (nil: absent, as Same
// says), with what it holds and the capture's error. It is the one compare
// made before a file is put back: undo and redo (the applier's check of a
// plan and redo's refusal), and a file revert's check of its targets.
func Holds(ctx context.Context, fsys vfs.FS, rel string, limit int64, want ...*State) (cur *State, err error, ok bool) {
	cur, err = Capture(ctx, fsys, HashSink, rel, limit)
	for _, w := range want {
		if Same(cur, w) {
			return cur, err, true
		}
	}
	return cur, err, false
}
