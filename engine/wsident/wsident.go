package wsident

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"time"

	"cairn/engine/wskey"
	"cairn/internal/timefmt"
	"cairn/internal/vfs"

	"github.com/google/uuid"
)

// Folder is the folder of the state folder that holds the files.
const Folder = "hosted"

// MaxPrevious is how many past generations a file keeps.
const MaxPrevious = 20

// Why a generation began. Part of the format.
const (
	WhyFirst    = "first"    // the path was served for the first time
	WhyReplaced = "replaced" // the folder at the path is another folder
	WhyAsked    = "asked"    // cairn host --new-generation
)

// Errors of the package.
var (
	// ErrDamaged: the identity file does not read, or names another path.
	ErrDamaged = errors.New("wsident: the workspace's identity file is damaged")
)

// Stamp tells one folder from another at the same path. A zero field is
// unknown and compares equal to anything.
type Stamp struct {
	Dev     uint64 `json:"dev"`
	Ino     uint64 `json:"ino"`
	BirthNS int64  `json:"birth_ns,omitempty"`
	InoGen  uint64 `json:"ino_gen,omitempty"` // the inode's generation number, plus one
}

// Same says whether a and b can be the same folder.
func (a Stamp) Same(b Stamp) bool {
	eq := func(x, y uint64) bool { return x == 0 || y == 0 || x == y }
	return eq(a.Dev, b.Dev) && eq(a.Ino, b.Ino) && eq(uint64(a.BirthNS), uint64(b.BirthNS)) && eq(a.InoGen, b.InoGen)
}

// Generation is one generation of a workspace.
type Generation struct {
	N     int64        `json:"generation"`
	Stamp Stamp        `json:"stamp"`
	Since timefmt.Time `json:"since"`
	Why   string       `json:"why"`
}

// Identity is a workspace's identity and its current generation.
type Identity struct {
	V    int    `json:"v"`
	Path string `json:"path"`
	ID   string `json:"identity"`
	Generation
	Previous []Generation `json:"previous,omitempty"`
}

// Name is the file of path p's identity in the state folder.
func Name(p string) string { return path.Join(Folder, wskey.Key(p)+".json") }

// Read reads the identity of path p; ok is false when it has none yet.
func Read(fsys vfs.FS, p string) (id Identity, ok bool, err error) {
	b, err := vfs.ReadFile(fsys, Name(p))
	if vfs.IsNotExist(err) {
		return Identity{}, false, nil
	}
	if err != nil {
		return Identity{}, false, fmt.Errorf("wsident: %w", err)
	}
	if err := json.Unmarshal(b, &id); err != nil || id.V != 1 || id.ID == "" || id.N < 1 {
		return Identity{}, false, fmt.Errorf("%w: %s: not an identity file", ErrDamaged, Name(p))
	}
	if id.Path != p {
		return Identity{}, false, fmt.Errorf("%w: %s names %q, not %q", ErrDamaged, Name(p), id.Path, p)
	}
	return id, true, nil
}

// Bind returns the identity of the workspace at path p, whose folder has
// stamp st: made when p has none, its generation moved on when st is
// another folder's, or when next asks for it. moved says the generation
// began with this call. It holds the file's lock while it reads, compares
// and writes, so two hosts starting at once move a generation on once.
func Bind(fsys vfs.FS, p string, st Stamp, next bool, now time.Time) (id Identity, moved bool, err error) {
	if !path.IsAbs(p) || path.Clean(p) != p {
		return Identity{}, false, fmt.Errorf("wsident: %q is not a clean absolute path", p)
	}
	if err := vfs.MkdirAllDurable(fsys, Folder, vfs.DirPerm); err != nil {
		return Identity{}, false, fmt.Errorf("wsident: %w", err)
	}
	lock := path.Join(Folder, wskey.Key(p)+".lock")
	f, err := fsys.OpenFile(lock, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return Identity{}, false, fmt.Errorf("wsident: %w", err)
	}
	defer f.Close()
	unlock, err := vfs.LockFile(f)
	if err != nil {
		return Identity{}, false, fmt.Errorf("wsident: %w", err)
	}
	defer unlock()

	id, ok, err := Read(fsys, p)
	if err != nil {
		return Identity{}, false, err
	}
	at := timefmt.Mk(now)
	switch {
	case !ok:
		id = Identity{V: 1, Path: p, ID: uuid.NewString(), Generation: Generation{N: 1, Stamp: st, Since: at, Why: WhyFirst}}
	case next || !id.Stamp.Same(st):
		why := WhyReplaced
		if next {
			why = WhyAsked
		}
		id.Previous = append(id.Previous, id.Generation)
		if len(id.Previous) > MaxPrevious {
			id.Previous = id.Previous[len(id.Previous)-MaxPrevious:]
		}
		id.Generation = Generation{N: id.N + 1, Stamp: st, Since: at, Why: why}
	default:
		return id, false, nil
	}
	b, err := json.Marshal(id)
	if err != nil {
		return Identity{}, false, err
	}
	if err := vfs.WriteFileAtomic(fsys, Name(p), append(b, '\n')); err != nil {
		return Identity{}, false, fmt.Errorf("wsident: %w", err)
	}
	return id, true, nil
}
