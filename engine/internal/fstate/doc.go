// Package fstate is a workspace file's state: read it, compare it, put it
// back. It is the F of the changes journal (engine/doc.go draws the
// journal; the shape of F is part of that format): a file's content as a
// stored object, inline, or by its hash only, with its mode (file, exec,
// link) and permission bits; or why it was not captured; or absent (nil).
//
// # Words
//
//   - State: one file's state, F. Same compares two states (content, mode,
//     and permission bits when both record them).
//   - Capture reads a file without following a final link and turns its
//     content into a State through a Sink: stored as an object (StoreSink),
//     kept inline when small (InlineSink), or only hashed (HashSink).
//   - Put makes a file hold a State: replaced atomically, or removed.
//   - Stage, Staged.Exchange, ReplaceFile, ReplaceLink, Remove: the atomic
//     writes under Put and the file tools. Every write goes through the
//     vfs.FS the caller opened at the workspace root (an os.Root on disk),
//     so no name in a record reaches outside the workspace. The folders
//     whose entries changed are collected in a DirSet for the caller to sync.
//
// # Rules
//
// It holds no locks and knows no session: the caller serializes. It
// imports internal/vfs and objects only; engine imports it.
package fstate

import "errors"

// Errors of the package.
var (
	// ErrNotFolder: a name's parent is not a folder, so the name cannot be
	// written.
	ErrNotFolder = errors.New("fstate: not a folder")
	// ErrNoStore: Capture had no Sink, the snapshot store being unusable.
	ErrNoStore = errors.New("the snapshot store cannot be written")
)
