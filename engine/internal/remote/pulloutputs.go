package remote

import (
	"context"
	"errors"
	"path"
	"sort"

	"cairn/internal/vfs"
)

// pullOutput downloads a retained tool output.
func (s *Syncer) pullOutput(ctx context.Context, ws, id, name string) error {
	fsys := s.Local.FS()
	dst := path.Join(outputsDir(ws, id), name)
	if _, err := fsys.Stat(dst); err == nil {
		return nil
	}
	data, _, err := s.Bucket.Get(ctx, outputKey(id, name))
	if errors.Is(err, ErrNotFound) {
		s.note("tool output %s of session %s is named by the log but not on the remote", name, id)
		return nil
	}
	if err != nil {
		return err
	}
	if err := vfs.MkdirAllDurable(fsys, outputsDir(ws, id), vfs.DirPerm); err != nil {
		return err
	}
	s.mu.Lock()
	s.rep.Pulled.Outputs++
	s.rep.Pulled.Bytes += int64(len(data))
	s.mu.Unlock()
	return vfs.WriteFileAtomic(fsys, dst, data)
}

// pullUsage copies each other machine's usage ledger lines to
// remotes/<name>/usage/<machine>.jsonl.
func (s *Syncer) pullUsage(ctx context.Context) error {
	fsys := s.Local.FS()
	for m, ms := range s.st.Machines {
		if len(ms.PendingUsage) == 0 {
			continue
		}
		name := usageName(s.Name, m)
		segs := ms.PendingUsage
		sort.Slice(segs, func(i, j int) bool {
			if segs[i].Gen != segs[j].Gen {
				return segs[i].Gen < segs[j].Gen
			}
			return segs[i].Off < segs[j].Off
		})
		var left []Segment
		for _, seg := range segs {
			if seg.Gen > ms.Usage.Gen {
				ms.Usage = FileState{Gen: seg.Gen}
				fsys.Remove(name)
			}
			if seg.Gen < ms.Usage.Gen || seg.Off < ms.Usage.End {
				continue
			}
			if seg.Off > ms.Usage.End {
				left = append(left, seg)
				continue
			}
			data, _, err := s.Bucket.Get(ctx, usageKey(m, seg.Gen, seg.Off))
			if err != nil {
				return err
			}
			size := ms.Usage.End
			if seg.Off == 0 {
				size = -1
				fsys.Remove(name)
			}
			if err := appendFile(fsys, name, size, data, false); err != nil {
				return err
			}
			ms.Usage.End += int64(len(data))
		}
		ms.PendingUsage = left
	}
	return nil
}
