package migrate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"sort"

	"cairn/engine/internal/changes"
	"cairn/engine/internal/durable"
	"cairn/engine/internal/layout"
	"cairn/engine/internal/objref"
	"cairn/internal/timefmt"
	"cairn/internal/vfs"
	"cairn/objects"
)

// Retarget rewrites the items journal's session line (without its
// newline) to name directory to; ok is false for a line that is not a
// session line, which is kept as it is.
type Retarget func(line []byte, to string) (out []byte, ok bool, err error)

// Copy does step 2: everything session p.Session needs at the destination,
// the items journal last (its rename is the commit). from and to are the
// source's and destination's object stores.
func Copy(ctx context.Context, fsys vfs.FS, from, to *objects.Store, p Plan, retarget Retarget) error {
	id, src, dst := p.Session, p.Src(), p.Dst()
	items, err := vfs.ReadFile(fsys, layout.Items(src, id))
	if err != nil {
		return err
	}
	named := map[string]bool{}
	objref.Add(items, named)
	if b, err := vfs.ReadFile(fsys, layout.Shell(src, id)); err == nil {
		objref.Add(b, named)
	}
	if err := copyObjects(ctx, from, to, named); err != nil {
		return err
	}
	if err := durable.CopyFolder(ctx, fsys, layout.SessionFolder(src, layout.Outputs, id), layout.SessionFolder(dst, layout.Outputs, id)); err != nil {
		return err
	}
	if err := copyTasks(ctx, fsys, from, to, p); err != nil {
		return err
	}
	for _, name := range []func(ws, id string) string{layout.Audit, layout.Shell} {
		if err := durable.CopyFile(fsys, name(src, id), name(dst, id)); err != nil {
			return err
		}
	}
	start, _ := json.Marshal(struct {
		V    int          `json:"v"`
		Kind string       `json:"kind"`
		At   timefmt.Time `json:"at"`
		Why  string       `json:"why"`
		From string       `json:"from"`
	}{1, changes.KindStart, p.At, "moved", p.FromPath}) // where its records start again
	if err := vfs.WriteFileAtomic(fsys, layout.Changes(dst, id), append(start, '\n')); err != nil {
		return err
	}
	moved, err := MovedItems(items, p, retarget)
	if err != nil {
		return err
	}
	return vfs.WriteFileAtomic(fsys, layout.Items(dst, id), moved)
}

// copyTasks copies the session's tasks folder (its task records and
// sub-agent transcripts) to the destination, after the payload and
// attachment objects the transcripts name (read a line at a time: they can
// be large).
func copyTasks(ctx context.Context, fsys vfs.FS, from, to *objects.Store, p Plan) error {
	dir := layout.SessionFolder(p.Src(), layout.Tasks, p.Session)
	ents, err := fsys.ReadDir(dir)
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
		if err := objref.File(fsys, path.Join(dir, e.Name()), named); err != nil {
			return fmt.Errorf("engine: read %s: %w", e.Name(), err)
		}
	}
	if err := copyObjects(ctx, from, to, named); err != nil {
		return err
	}
	return durable.CopyFolder(ctx, fsys, dir, layout.SessionFolder(p.Dst(), layout.Tasks, p.Session))
}

// copyObjects copies the objects named from one store to the other, in the
// order of their ids.
func copyObjects(ctx context.Context, from, to *objects.Store, named map[string]bool) error {
	oids := make([]string, 0, len(named))
	for oid := range named {
		oids = append(oids, oid)
	}
	sort.Strings(oids)
	for _, oid := range oids {
		if err := copyObject(ctx, from, to, oid); err != nil {
			return err
		}
	}
	return nil
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

// MovedItems is the items journal as the destination holds it: the session
// line names the new directory, and a moved line ends it. A torn last line
// is left out (a writer would cut it).
func MovedItems(items []byte, p Plan, retarget Retarget) ([]byte, error) {
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
			b, ok, err := retarget(line[:i], p.ToPath)
			if err != nil {
				return nil, err
			}
			if ok {
				out.Write(b)
				out.WriteByte('\n')
				continue
			}
		}
		out.Write(line)
	}
	b, err := json.Marshal(struct {
		V    int          `json:"v"`
		Kind string       `json:"kind"`
		At   timefmt.Time `json:"at"`
		From string       `json:"from"`
		To   string       `json:"to"`
	}{1, KindMoved, p.At, p.FromPath, p.ToPath})
	if err != nil {
		return nil, err
	}
	out.Write(b)
	out.WriteByte('\n')
	return out.Bytes(), nil
}
