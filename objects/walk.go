package objects

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"strings"

	"cairn/internal/vfs"
)

// Walk calls fn with the Info of every object in the store, in order of ID
// (an ID stored both raw and compressed is visited twice, raw first). It
// does not verify content. Temp files are skipped. A missing store folder
// holds no objects.
//
// Anything else found in the store, and any shard or object Walk cannot
// read, is a problem: Walk goes on, and returns the problems at the end
// joined into one error, each a *ProblemError (Problems lists them). An
// error from fn or ctx stops Walk at once and is returned as it is.
func (s *Store) Walk(ctx context.Context, fn func(Info) error) error {
	ents, err := s.fsys.ReadDir(s.dir)
	if err != nil {
		if vfs.IsNotExist(err) {
			return nil
		}
		return fmt.Errorf("objects: walk: %w", err)
	}
	var problems []error
	problem := func(name string, err error) {
		problems = append(problems, &ProblemError{Path: name, Err: err})
	}
	for _, e := range ents {
		if isDotFile(e.Name()) {
			continue
		}
		shard := path.Join(s.dir, e.Name())
		if !e.IsDir() || len(e.Name()) != 2 || !lowerHex(e.Name()) {
			problem(shard, errNotObject)
			continue
		}
		objs, err := s.fsys.ReadDir(shard)
		if err != nil {
			problem(shard, err)
			continue
		}
		for _, o := range objs {
			if err := ctx.Err(); err != nil {
				return err
			}
			if isDotFile(o.Name()) {
				continue
			}
			name := path.Join(shard, o.Name())
			id, compressed, ok := parseObjectName(e.Name(), o.Name())
			if !ok || !o.Type().IsRegular() {
				problem(name, errNotObject)
				continue
			}
			fi, err := o.Info()
			if err != nil {
				problem(name, err)
				continue
			}
			info, err := s.statFile(id, name, fi.Size(), true)
			if err != nil {
				problem(name, err)
				continue
			}
			info.Compressed = compressed
			if err := fn(info); err != nil {
				return err
			}
		}
	}
	return errors.Join(problems...)
}

// parseObjectName parses the shard and file names of an object.
func parseObjectName(shard, base string) (id ID, compressed bool, ok bool) {
	rest, compressed := strings.CutSuffix(base, zstSuffix)
	s := shard + rest
	if len(s) != 2*len(id) || !lowerHex(s) {
		return ID{}, false, false
	}
	hex.Decode(id[:], []byte(s))
	return id, compressed, true
}

// isDotFile reports whether a name found in the store is a dot file: a
// temp file of a Put (vfs.IsTemp), an older version's, or any hidden file.
// None is an object, so Walk skips them.
func isDotFile(name string) bool { return strings.HasPrefix(name, ".") }
