package vfs

// WriteBacker is a File that can write its data to the disk ahead of
// Sync: the data's blocks are placed then, so a Sync that follows has only
// the filesystem's journal left to commit, and syncs of several files
// issued together more often ride one commit.
type WriteBacker interface {
	// WriteBack writes the file's dirty data and waits for it. It makes
	// nothing durable: only Sync does.
	WriteBack() error
}

// WriteBack writes f's data ahead of its Sync when f can (WriteBacker); it
// is only a hint, and does nothing otherwise.
func WriteBack(f any) {
	if w, ok := f.(WriteBacker); ok {
		w.WriteBack()
	}
}
