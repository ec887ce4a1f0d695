package cli

import "golang.org/x/sys/unix"

// ioctlInQueue counts the bytes a terminal holds unread (replPTY.awaitQueued).
const ioctlInQueue = unix.TIOCINQ
