package wskey

import (
	"errors"
	"fmt"
	"path"

	"cairn/internal/vfs"
)

// Verify says which path the workspace folder key under dir (fsys-relative,
// such as "workspaces") belongs to, checked the way Resolve finds a folder
// for a path: its workspace.json must name an absolute, clean path, and
// Resolve of that path must pick this very folder. A reader that starts from
// a folder (a listing of every workspace, the HTTP server) so agrees with one
// that starts from a directory, and a folder the command line passes over is
// never used for the path its workspace.json claims.
//
// A folder without workspace.json belongs to the path its key decodes to
// when Resolve would adopt it. Verify writes nothing.
//
// A workspace.json that cannot be read as one gives ErrBadInfo; a folder that
// is not the one Resolve picks for that path gives ErrNotItsFolder; anything
// else is the filesystem's error.
func Verify(fsys vfs.FS, dir, key string) (string, error) {
	folder := path.Join(dir, key)
	in, err := ReadInfo(fsys, folder)
	p := in.Path
	switch {
	case err == nil:
		if path.Clean(p) != p {
			return "", fmt.Errorf("%w: %s: path %q is not clean", ErrBadInfo, path.Join(folder, InfoFile), p)
		}
	case vfs.IsNotExist(err):
		d, derr := Decode(key)
		if derr != nil || path.Clean(d) != d {
			return "", fmt.Errorf("%w: %s has no %s and its name is not the key of a clean path", ErrNotItsFolder, folder, InfoFile)
		}
		p = d
	default:
		return "", err
	}
	got, _, err := Resolve(fsys, dir, p, false, nil)
	switch {
	case errors.Is(err, ErrNoWorkspace), errors.Is(err, ErrRelative):
		return "", fmt.Errorf("%w: %s is not the folder of %s (that path has none)", ErrNotItsFolder, folder, p)
	case err != nil:
		return "", err
	case got != key:
		return "", fmt.Errorf("%w: %s is not the folder of %s (its folder is %s)", ErrNotItsFolder, folder, p, path.Join(dir, got))
	}
	return p, nil
}
