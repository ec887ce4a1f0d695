//go:build !(linux && (amd64 || arm64))

package scope

import "golang.org/x/sys/unix"

// fstatat0 is fstatat(2) of name in folder dirfd, not following a link
// (statat_linux64.go reads name in place where it can).
func fstatat0(dirfd int, name string, st *unix.Stat_t) error {
	return unix.Fstatat(dirfd, name, st, unix.AT_SYMLINK_NOFOLLOW)
}
