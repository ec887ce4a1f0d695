package index

import (
	"path"

	"cairn/internal/vfs"
)

// CheckFile reads the index.json of workspace folder dir as Refresh would
// and returns why it cannot use it: unreadable (not a regular file, say)
// or not a version 1 index. A missing index.json is fine. It changes
// nothing; a listing rebuilds an unusable index.json from the records.
func CheckFile(fsys vfs.FS, dir string) error {
	data, err := readAll(fsys, path.Join(dir, fileName))
	if vfs.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	_, err = decodeCache(data)
	return err
}
