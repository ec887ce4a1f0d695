package vfs

import "io/fs"

// Umasker is an FS that knows the file-mode creation mask its new files
// get (umask(2)): Disk the process's, Mem its own (SetUmask).
type Umasker interface {
	Umask() fs.FileMode
}

// Umask is the creation mask of fsys: its own when it is an Umasker, else
// the process's. A file a user's tool creates gets 0666 without these bits.
func Umask(fsys FS) fs.FileMode {
	if u, ok := fsys.(Umasker); ok {
		return u.Umask() & fs.ModePerm
	}
	return ProcessUmask()
}

// Umask is the process's creation mask, read each time (it may change).
func (d *Disk) Umask() fs.FileMode { return ProcessUmask() }

// Umask is the creation mask of the FS under the faults.
func (f *Faulty) Umask() fs.FileMode { return Umask(f.inner) }
