package scope

import "golang.org/x/sys/unix"

// unixStat and lstat let tests make a stat buffer as the walk does.
type unixStat = unix.Stat_t

func lstat(p string, st *unixStat) error { return unix.Lstat(p, st) }
