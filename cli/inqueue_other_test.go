//go:build !linux && !windows

package cli

// ioctlInQueue counts the bytes a terminal holds unread
// (replPTY.awaitQueued): FIONREAD, _IOR('f', 127, int), which the system
// package does not name everywhere.
const ioctlInQueue = 0x4004667f
