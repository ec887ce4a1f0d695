package vfs

import "io/fs"

// Fchmoder is a File that can change its own mode through its handle
// (fchmod(2)), without walking its name again.
type Fchmoder interface {
	Chmod(mode fs.FileMode) error
}

// ChmodFile sets the mode of f, opened as name in fsys: through the handle
// when f can (Fchmoder), else by its name.
func ChmodFile(fsys FS, f File, name string, mode fs.FileMode) error {
	if c, ok := f.(Fchmoder); ok {
		return c.Chmod(mode)
	}
	return fsys.Chmod(name, mode)
}
