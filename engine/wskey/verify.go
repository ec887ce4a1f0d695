package wskey

import (
	"errors"
	"fmt"
	"path"

	"cairn/internal/vfs"
)

// Verify says which path the workspace folder key under dir (fsys-relative,
// such as "workspaces") belongs to, checked the way Resolve finds a folder
// for a path: the path must be absolute and clean, and Resolve of it must
// pick this very folder. A reader that starts from a folder (a listing of
// every workspace, the HTTP server) so agrees with one that starts from a
// directory, and a folder the command line passes over is never used for
// the path its workspace.json claims.
//
// The path is the one workspace.json names; when that file is missing or
// cannot be read, it is the path the key decodes to, and the folder is that
// path's only if Resolve takes it all the same (it adopts an un-suffixed
// folder without workspace.json). Verify writes nothing.
//
// A workspace.json that cannot be read as one, or names a path that is not
// clean, gives ErrBadInfo; a folder that is not the one Resolve picks gives
// ErrNotItsFolder; anything else is the filesystem's error.
func Verify(fsys vfs.FS, dir, key string) (string, error) {
	folder := path.Join(dir, key)
	in, err := ReadInfo(fsys, folder)
	p, why := in.Path, error(nil) // why: the reason to give if Resolve does not take the folder
	switch {
	case err == nil:
		if path.Clean(p) != p {
			return "", fmt.Errorf("%w: %s: path %q is not clean", ErrBadInfo, path.Join(folder, InfoFile), p)
		}
	case vfs.IsNotExist(err), errors.Is(err, ErrBadInfo):
		why = err
		if vfs.IsNotExist(err) {
			why = fmt.Errorf("%w: %s has no %s", ErrNotItsFolder, folder, InfoFile)
		}
		d, derr := Decode(key)
		if derr != nil || path.Clean(d) != d {
			return "", why
		}
		p = d
	default:
		return "", err
	}
	got, _, err := Resolve(fsys, dir, p, false, nil)
	switch {
	case err == nil && got == key:
		return p, nil
	case why != nil:
		return "", why
	case err != nil && !errors.Is(err, ErrNoWorkspace) && !errors.Is(err, ErrRelative):
		return "", err
	case err != nil:
		return "", fmt.Errorf("%w: %s is not the folder of %s (that path has none)", ErrNotItsFolder, folder, p)
	}
	return "", fmt.Errorf("%w: %s is not the folder of %s (its folder is %s)", ErrNotItsFolder, folder, p, path.Join(dir, got))
}
