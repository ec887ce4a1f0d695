//go:build unix && !linux

package vfs

// statAt stats name in folder fd without following a link, into info.
func statAt(fd int, name string, _ []byte, info *statInfo) error {
	return fstatatInfo(fd, name, info)
}
