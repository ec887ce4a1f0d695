//go:build !unix

package stats

import "io/fs"

// diskUsage: without stat data, see roundBlock.
func diskUsage(fs.FileInfo) (disk int64, dev, ino uint64, ok bool) { return 0, 0, 0, false }
