// Package outputs keeps tool outputs: a tool's whole output, kept so that
// a truncated result can point at it. The engine checks the ids, finds the
// session, and calls these to write, read, search, copy and clean.
//
// # Words
//
//   - output id: ids.OutputHandle of its producer with a collision suffix
//     allocated within the session ("output-cargo-test",
//     "output-cargo-test-2").
//   - orphan: a session's output folder whose session has no items
//     journal (a failed delete, an interrupted write, a fork that never
//     started); CleanOrphans removes it once older than a grace period.
//
// # Format
//
// Part of the format: each output is one zstd frame, written whole by
// atomic rename, at
//
//	outputs/<session id>/<output id>.zst
//
// in the workspace folder. An output belongs to its session: it is read
// and searched only by naming that session, is copied into a fork under
// the same id, and is deleted with the session.
//
// # Locks
//
// Names, one per store, holds the names being written under its own mutex
// (a leaf), so two writers never pick the same id. Nothing else holds
// state or takes a lock: an output is written whole by rename, so readers
// never see part of one.
package outputs
