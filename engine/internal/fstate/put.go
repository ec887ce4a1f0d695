package fstate

import (
	"context"
	"fmt"
	"io"
	"io/fs"

	"cairn/internal/vfs"
	"cairn/objects"
)

// Restorable reports whether state f can be put back: absent, inline, or
// an object that exists.
func Restorable(objs *objects.Store, f *State) bool {
	if f == nil || f.Inline() {
		return true
	}
	id, err := objects.ParseID(f.OID)
	if err != nil {
		return false
	}
	ok, err := objs.Has(id)
	return ok && err == nil
}

// maxLink is the longest link target restored.
const maxLink = 64 << 10

// Put makes workspace file rel hold state f: removed when nil, else
// its content (inline, verified when the line was read, or the object's,
// verified as it is copied) with f's mode and permission bits.
func Put(ctx context.Context, fsys vfs.FS, objs *objects.Store, rel string, f *State, dirs DirSet) error {
	if f == nil {
		return Remove(fsys, rel, dirs)
	}
	if f.Inline() {
		if f.Mode == ModeLink {
			return putLink(fsys, rel, string(f.Data), dirs)
		}
		return ReplaceFile(fsys, rel, restorePerm(fsys, rel, f), dirs, func(w io.Writer) error {
			_, err := w.Write(f.Data)
			return err
		})
	}
	id, err := objects.ParseID(f.OID)
	if err != nil {
		return err
	}
	if f.Mode == ModeLink {
		b, err := objs.ReadAll(ctx, id, maxLink)
		if err != nil {
			return err
		}
		return putLink(fsys, rel, string(b), dirs)
	}
	return ReplaceFile(fsys, rel, restorePerm(fsys, rel, f), dirs, func(w io.Writer) error {
		rc, err := objs.Get(ctx, id)
		if err != nil {
			return err
		}
		defer rc.Close()
		n, err := io.Copy(w, rc)
		if err != nil {
			return err
		}
		if n != f.Size {
			return fmt.Errorf("object %s holds %d bytes, the record says %d", f.OID, n, f.Size)
		}
		return nil
	})
}

// restorePerm is the permission a file put back from state f gets: the
// bits f records, else (a line written before they were recorded) those
// FilePerm gives.
func restorePerm(fsys vfs.FS, rel string, f *State) fs.FileMode {
	if perm, ok := f.PermBits(); ok {
		return perm
	}
	return FilePerm(fsys, rel, f.Mode == ModeExec)
}

// putLink makes rel a symbolic link to target; a folder there is left.
func putLink(fsys vfs.FS, rel, target string, dirs DirSet) error {
	if fi, err := fsys.Lstat(rel); err == nil && fi.IsDir() {
		return fmt.Errorf("%s is a folder", rel)
	}
	return ReplaceLink(fsys, rel, target, dirs)
}

// Reasons Read gives no content.
const (
	ReadTooLarge = "too large" // more than the limit asked for
	ReadNotKept  = "not kept"  // recorded by its hash only, and no object holds it
)

// Read is state f's content, at most limit bytes of it: inline, the
// object, or for a state recorded by its hash only the object of that
// hash when one was stored (a later pre-image of the same content). why
// says why there is none: f's skip reason, ReadTooLarge or ReadNotKept.
// A link's content is its target. f nil (absent) reads as no bytes.
func Read(ctx context.Context, objs *objects.Store, f *State, limit int64) (data []byte, why string, err error) {
	switch {
	case f == nil:
		return nil, "", nil
	case f.IsSkipped():
		return nil, f.Skipped, nil
	case f.Size > limit:
		return nil, ReadTooLarge, nil
	case f.Inline():
		return append([]byte{}, f.Data...), "", nil
	}
	id, err := objects.ParseID(f.Sum())
	if err != nil {
		return nil, ReadNotKept, nil
	}
	if ok, err := objs.Has(id); err != nil {
		return nil, "", err
	} else if !ok {
		return nil, ReadNotKept, nil
	}
	b, err := objs.ReadAll(ctx, id, limit)
	if err != nil {
		return nil, "", err
	}
	return b, "", nil
}
