package vfs

import "golang.org/x/sys/unix"

// WriteBack writes the file's dirty data and waits for it
// (sync_file_range(2)), without a commit of the filesystem's journal.
func (f *diskFile) WriteBack() error {
	return unix.SyncFileRange(int(f.Fd()), 0, 0,
		unix.SYNC_FILE_RANGE_WAIT_BEFORE|unix.SYNC_FILE_RANGE_WRITE|unix.SYNC_FILE_RANGE_WAIT_AFTER)
}
