package wskey

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
	"syscall"
	"time"

	"cairn/internal/timefmt"
	"cairn/internal/vfs"
)

// InfoFile is the name of the file in a workspace folder that names its path.
const InfoFile = "workspace.json"

// Info is the content of workspace.json.
type Info struct {
	V         int       `json:"v"`
	Path      string    `json:"path"`
	CreatedAt time.Time `json:"created_at"`
}

// timeLayout is RFC 3339 in UTC with milliseconds, the format's time layout.
const timeLayout = timefmt.Layout

// MarshalJSON writes created_at in UTC with milliseconds.
func (in Info) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		V         int    `json:"v"`
		Path      string `json:"path"`
		CreatedAt string `json:"created_at"`
	}{in.V, in.Path, in.CreatedAt.UTC().Format(timeLayout)})
}

// ReadInfo reads and checks the workspace.json of folder (fsys-relative).
// A file that is not a version 1 workspace.json with an absolute path, and
// anything in its place that is not a file (a folder, a FIFO), gives
// ErrBadInfo; a missing one gives an error satisfying vfs.IsNotExist.
func ReadInfo(fsys vfs.FS, folder string) (Info, error) {
	data, err := vfs.ReadFile(fsys, path.Join(folder, InfoFile))
	if errors.Is(err, syscall.EISDIR) || errors.Is(err, vfs.ErrNotRegular) {
		return Info{}, fmt.Errorf("%w: %w", ErrBadInfo, err)
	}
	if err != nil {
		return Info{}, err
	}
	var in Info
	if err := json.Unmarshal(data, &in); err != nil {
		return Info{}, fmt.Errorf("%w: %s: %v", ErrBadInfo, path.Join(folder, InfoFile), err)
	}
	if in.V != 1 || !strings.HasPrefix(in.Path, "/") {
		return Info{}, fmt.Errorf("%w: %s: version %d, path %q", ErrBadInfo, path.Join(folder, InfoFile), in.V, in.Path)
	}
	return in, nil
}

// Resolve finds the workspace folder of path (absolute, canonical) under dir
// (fsys-relative, such as "workspaces") and returns its key. It tries Key(path),
// then Key(path)+"~2", "~3", ...: a folder whose workspace.json names another
// path, or cannot be read as one, is passed over; a folder with the
// un-suffixed, reversible key and no workspace.json is adopted. note is empty
// unless a suffixed key is returned, and then says why.
//
// With create false and no folder for path, Resolve returns ErrNoWorkspace
// unwrapped and writes nothing. With create true it makes the folder (0700),
// writes its workspace.json atomically with created_at from now, and syncs
// dir; it also writes the workspace.json of an adopted folder.
func Resolve(fsys vfs.FS, dir, p string, create bool, now func() time.Time) (key, note string, err error) {
	if !strings.HasPrefix(p, "/") {
		return "", "", fmt.Errorf("%w: %q", ErrRelative, p)
	}
	if now == nil {
		now = time.Now
	}
	base := Key(p)
	_, decErr := Decode(base)
	firstOther := "" // whose the un-suffixed folder is, for the note
	for n := 1; ; n++ {
		key = base
		if n > 1 {
			key = base + "~" + strconv.Itoa(n)
		}
		folder := path.Join(dir, key)
		st, err := claim(fsys, folder, p, n == 1, decErr == nil)
		if err != nil {
			return "", "", err
		}
		switch st.kind {
		case disputed:
			return "", "", &DisputedError{Key: key, Path: p, Named: st.owner, Err: st.err}
		case mine:
			return key, mkNote(base, key, firstOther), nil
		case adopt:
			if create {
				if err := writeInfo(fsys, dir, folder, p, now); err != nil {
					return "", "", err
				}
			}
			return key, "", nil
		case other:
			if n == 1 {
				firstOther = st.owner
			}
			continue
		}
		// A free slot. A later suffix may still be ours if a folder before
		// it was removed since.
		if later, ok, err := findLater(fsys, dir, base, n, p); err != nil {
			return "", "", err
		} else if ok {
			return later, mkNote(base, later, firstOther), nil
		}
		if !create {
			return "", "", ErrNoWorkspace
		}
		if err := vfs.MkdirAllDurable(fsys, folder, vfs.DirPerm); err != nil {
			return "", "", fmt.Errorf("wskey: create %s: %w", folder, err)
		}
		if err := writeInfo(fsys, dir, folder, p, now); err != nil {
			return "", "", err
		}
		return key, mkNote(base, key, firstOther), nil
	}
}

type claimKind int

const (
	free     claimKind = iota // no such folder
	mine                      // its workspace.json names the path
	adopt                     // no workspace.json, key decodes to the path
	other                     // anything else: not ours
	disputed                  // p's own folder by its exact name, but its workspace.json does not say so
)

type claimState struct {
	kind  claimKind
	owner string // for other: who has it, for the note; for disputed: the path its workspace.json names
	err   error  // for disputed: why its workspace.json could not be read
}

// claim says what the folder is to path p. first says the folder's key is the
// un-suffixed key of p, and decodable that this key decodes to p.
//
// The first folder, found by its exact name, is p's by its name alone: two
// paths cannot have one exact key (only a case-insensitive filesystem, which
// finds it under another spelling, or a hash collision, whose workspace.json
// names a path with the same key, can put two paths in one folder). When its
// workspace.json is unreadable, or names a path whose key is another, or is
// missing from a hashed folder, the folder is disputed: the caller decides,
// from what the folder holds, whether to rewrite it or to stop. A disputed
// folder is never passed over for a suffixed one, which would hide every
// session in it.
func claim(fsys vfs.FS, folder, p string, first, decodable bool) (claimState, error) {
	reversible := first && decodable
	fi, err := fsys.Lstat(folder)
	if vfs.IsNotExist(err) {
		return claimState{kind: free}, nil
	}
	if err != nil {
		return claimState{}, fmt.Errorf("wskey: %w", err)
	}
	if !fi.IsDir() {
		return claimState{kind: other, owner: "something that is not a folder"}, nil
	}
	in, err := ReadInfo(fsys, folder)
	if err == nil && in.Path == p {
		return claimState{kind: mine}, nil
	}
	if first && (err == nil && Key(in.Path) != path.Base(folder) || errors.Is(err, ErrBadInfo) || vfs.IsNotExist(err) && !decodable) {
		exact, xerr := hasExactName(fsys, path.Dir(folder), path.Base(folder))
		if xerr != nil {
			return claimState{}, xerr
		}
		if exact {
			if err == nil {
				return claimState{kind: disputed, owner: in.Path}, nil
			}
			return claimState{kind: disputed, err: err}, nil
		}
	}
	switch {
	case err == nil:
		return claimState{kind: other, owner: in.Path}, nil
	case vfs.IsNotExist(err) && reversible:
		// On a case-insensitive filesystem the folder may be another
		// path's, spelled differently: adopt only the exact name.
		exact, err := hasExactName(fsys, path.Dir(folder), path.Base(folder))
		if err != nil {
			return claimState{}, err
		}
		if !exact {
			return claimState{kind: other, owner: "no one known (it has no workspace.json)"}, nil
		}
		return claimState{kind: adopt}, nil
	case vfs.IsNotExist(err):
		return claimState{kind: other, owner: "no one known (it has no workspace.json)"}, nil
	case errors.Is(err, ErrBadInfo):
		return claimState{kind: other, owner: "no one known (its workspace.json is unreadable)"}, nil
	}
	return claimState{}, fmt.Errorf("wskey: %w", err)
}

// hasExactName reports whether folder dir lists name byte for byte.
func hasExactName(fsys vfs.FS, dir, name string) (bool, error) {
	ents, err := fsys.ReadDir(dir)
	if err != nil {
		return false, fmt.Errorf("wskey: %w", err)
	}
	for _, e := range ents {
		if e.Name() == name {
			return true, nil
		}
	}
	return false, nil
}

// findLater looks for a folder base~M, M > n, whose workspace.json names p.
func findLater(fsys vfs.FS, dir, base string, n int, p string) (string, bool, error) {
	ents, err := fsys.ReadDir(dir)
	if vfs.IsNotExist(err) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("wskey: %w", err)
	}
	for _, e := range ents {
		name := e.Name()
		rest, ok := strings.CutPrefix(name, base+"~")
		if !ok || !validSuffix("~"+rest) {
			continue
		}
		if m, err := strconv.Atoi(rest); err != nil || m <= n {
			continue
		}
		in, err := ReadInfo(fsys, path.Join(dir, name))
		if err == nil && in.Path == p {
			return name, true, nil
		}
	}
	return "", false, nil
}

func mkNote(base, key, owner string) string {
	if key == base {
		return ""
	}
	if owner == "" {
		owner = "another path"
	}
	return fmt.Sprintf("workspace folder %s belongs to %s; using %s", base, owner, key)
}

// WriteInfo writes the workspace.json of folder key under dir, naming path p,
// atomically, and makes the folder's entry in dir durable. It is how a caller
// settles a DisputedError it has found to be p's folder.
func WriteInfo(fsys vfs.FS, dir, key, p string, now func() time.Time) error {
	if !strings.HasPrefix(p, "/") {
		return fmt.Errorf("%w: %q", ErrRelative, p)
	}
	if now == nil {
		now = time.Now
	}
	return writeInfo(fsys, dir, path.Join(dir, key), p, now)
}

// writeInfo writes folder's workspace.json and makes the folder's entry in dir
// durable.
func writeInfo(fsys vfs.FS, dir, folder, p string, now func() time.Time) error {
	data, err := json.Marshal(Info{V: 1, Path: p, CreatedAt: now()})
	if err != nil {
		return err
	}
	data = append(data, '\n')
	if err := vfs.WriteFileAtomic(fsys, path.Join(folder, InfoFile), data); err != nil {
		return fmt.Errorf("wskey: write %s: %w", path.Join(folder, InfoFile), err)
	}
	if err := fsys.SyncDir(dir); err != nil {
		return fmt.Errorf("wskey: %w", err)
	}
	return nil
}

// Named is the key of the folder of workspaces folder dir whose
// workspace.json names exactly p (the directory may be gone): its own
// key's folder first, then every other; false when none does.
func Named(fsys vfs.FS, dir, p string) (string, bool) {
	names := func(key string) bool {
		in, err := ReadInfo(fsys, path.Join(dir, key))
		return err == nil && in.Path == p
	}
	if k := Key(p); names(k) {
		return k, true
	}
	ents, _ := fsys.ReadDir(dir)
	for _, e := range ents {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && names(e.Name()) {
			return e.Name(), true
		}
	}
	return "", false
}
