//go:build !unix

package index

import "io/fs"

// inode is 0 where the platform has no inode numbers: size and time decide.
func inode(fs.FileInfo) uint64 { return 0 }
