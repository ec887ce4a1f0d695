package scope

import (
	"io/fs"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// Keeping the entries of each folder a walk read, for finish to put in
// path order (walk.go).

// addDir keeps folder rel's entries (sorted by name) and the names of the
// subfolders the walk enters, for finish to put in path order; hits is
// how many of its files the cache gave.
func (w *walker) addDir(rel string, batch []Entry, subs []string, files, hits int, bytes int64) bool {
	// Subfolders in the order of name + "/" ("b.d/" before "b/").
	slices.SortFunc(subs, func(a, b string) int { return strings.Compare(a+"/", b+"/") })
	w.mu.Lock()
	w.outs[rel] = &dirOut{entries: batch, subs: subs}
	w.count += len(batch)
	w.hits += hits
	w.mu.Unlock()
	return w.add(nil, files, bytes, rel)
}

// dirOut is what the walk found in one folder.
type dirOut struct {
	nested  bool     // a nested repository: left out, its own entry too
	entries []Entry  // sorted by name
	subs    []string // base names of the subfolders entered, by name + "/"
}

// nested reports whether e is a folder the walk found to be a nested
// repository (after finish's wait: no lock needed).
func (w *walker) nested(e *Entry) bool {
	if !e.IsDir() {
		return false
	}
	o := w.outs[e.Path]
	return o != nil && o.nested
}

// flatten appends the entries of folder rel and of the folders under it
// in path order (byte order of the whole path): a subfolder's entries
// sort as its name with a "/" after it, among its siblings' names.
func (w *walker) flatten(rel string, out []Entry) []Entry {
	o := w.outs[rel]
	if o == nil {
		return out
	}
	cut := len(rel) + 1
	if rel == "" {
		cut = 0
	}
	j := 0
	for i := range o.entries {
		name := o.entries[i].Path[cut:]
		for j < len(o.subs) && o.subs[j]+"/" < name {
			out = w.flatten(join(rel, o.subs[j]), out)
			j++
		}
		if !w.nested(&o.entries[i]) {
			out = append(out, o.entries[i])
		}
	}
	for ; j < len(o.subs); j++ {
		out = w.flatten(join(rel, o.subs[j]), out)
	}
	return out
}

// add lists a folder's entries and checks the limits.
func (w *walker) add(batch []Entry, files int, bytes int64, rel string) bool {
	w.mu.Lock()
	w.entries = append(w.entries, batch...)
	w.files += files
	w.bytes += bytes
	var lim string
	switch {
	case w.opts.MaxFiles > 0 && w.files > w.opts.MaxFiles:
		lim = "max_files"
	case w.opts.MaxBytes > 0 && w.bytes > w.opts.MaxBytes:
		lim = "max_bytes"
	}
	w.mu.Unlock()
	if lim != "" {
		w.fail(&LimitError{Limit: lim, Path: rel})
		return false
	}
	return true
}

// entryOf is the Entry of rel from its lstat.
func entryOf(rel string, st *unix.Stat_t) Entry {
	e := Entry{Path: rel, Size: st.Size, MtimeNS: st.Mtim.Nano(), CtimeNS: st.Ctim.Nano(), Ino: uint64(st.Ino),
		Mode: fs.FileMode(st.Mode & 0o777)}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		// A folder's size and times change with its entries, which are
		// listed themselves: left zero, so a folder's Entry changes only
		// when it is replaced or its mode changes.
		e.Mode |= fs.ModeDir
		e.Size, e.MtimeNS, e.CtimeNS = 0, 0, 0
	case unix.S_IFLNK:
		e.Mode |= fs.ModeSymlink
	}
	return e
}
