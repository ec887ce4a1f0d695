// Package changes holds what the changes journal's undo stack does to the
// workspace's files: a Plan, the files to put back and the state each must
// get, and the one Applier that runs a plan. An undo, a redo, each step of
// a restore-to and the recovery of one that its owner did not finish all
// make a plan, and the same Applier runs it, so putting files back is
// written once (file revert will be one more maker of plans).
//
// The journal's format and its fold into the undo stack are drawn in
// engine/doc.go and engine/changes_format.go, and still live in package
// engine; they are this package's to hold next.
//
// # Rules
//
// It holds no locks and knows no session: the caller serializes, and
// writes the journal line that names a plan's contents before it runs the
// plan (data before the line that names it, the line before the files).
// It imports engine/internal/fstate, internal/vfs and objects; engine
// imports it.
package changes
