package vfs

import "os"

// MapFile is the bytes of file name, mapped read-only into memory where
// fsys can (a Disk, on Linux), else read whole (ReadFile); done gives a
// mapping back, and does nothing to bytes read. A mapping is the page
// cache's own pages: a large file read once, such as a mark a hook reads
// at every prompt, costs the process no fresh memory, where a read copies
// it into pages the process touches for the first time.
//
// The caller keeps no part of b after done (no string made over it
// either), and writes nothing to it. It maps only a file nobody shortens
// or rewrites in place while it is mapped (one it alone writes, under its
// lock): a read of a page past the file's end kills the process (unless
// the reader runs under debug.SetPanicOnFault and recovers), and bytes
// written in place change under the reader.
func MapFile(fsys FS, name string) (b []byte, done func(), err error) {
	if d, ok := fsys.(*Disk); ok {
		f, err := d.OpenFile(name, os.O_RDONLY, 0)
		if err != nil {
			return nil, nil, err
		}
		defer f.Close()
		if b, done, ok := mapOpen(f.(*diskFile)); ok {
			return b, done, nil
		}
	}
	b, err = ReadFile(fsys, name)
	if err != nil {
		return nil, nil, err
	}
	return b, func() {}, nil
}
