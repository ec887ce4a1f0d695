// Package tools holds the mechanisms of the file tools (write, edit, rm
// and apply_patch) that need no session: what each tool will do to its
// file (a Plan), apply_patch worked out in memory against the files
// (PlanPatch), the new content staged beside its name in the background
// (Job), and which names a file tool may write (CheckPath, FencedOff,
// FileName).
//
// # Words
//
//   - Edit: what a tool will do to one file: write content (with the
//     executable bit or not) or remove it.
//   - Plan: how a single-file tool works out its Edit: Write, Replace
//     (the edit tool) and Remove.
//   - PatchFile: one file of an apply_patch change, as the plan read it
//     (Old) and as the patch leaves it (New), each a State.
//   - Job: a new content being staged in a temp file beside its name,
//     written and fsynced in the background (fstate.Stage).
//
// # Rules
//
// It holds no locks: the engine's file tools (tools_run.go, patch_run.go)
// hold the session's locks, resolve names inside the workspace (a
// Resolver) and lend a Run the session (a Host), through which the Run
// writes the change line and settles the undo stack. Its
// errors wrap the engine's sentinels (errs.ErrBadInput, errs.ErrRefused)
// and read as the engine's.
//
// # The steps of a file tool
//
// The file tools: write, edit and rm (apply_patch, which changes several
// files under one change line, is in patch.go). Each changes one file through the
// workspace's os.Root, recorded line first (Run, run.go):
//
//  1. the pre-image is captured: inline in the change line when small,
//     else a durable object;
//  2. the change line, naming the pre-image and the after state the tool is
//     about to make, is appended and synced while the new content is staged
//     in a temp file beside the name and fsynced, and while the folder sync
//     of the tool before it (step 4) may still be under way;
//  3. only when all three are over is the temp file swapped with the file
//     (its old content removed in the background) or renamed over the
//     name, or the file removed;
//  4. the folder is synced in the background (fileSyncs): the next file
//     tool waits for it before its step 3, every other line of the changes
//     journal and the end of the turn before they start.
//
// A tool that fails after its line cancels the change with an abort line;
// a crash in between is settled by the next owner (loadChanges), which
// judges the two newest changes together. A
// tool that fails before records nothing. A tool that would replace or
// remove a file whose pre-image cannot be recorded (the store or the
// changes journal cannot be written) is refused before it changes anything
// (noPreImage).
//
// # The steps of apply_patch
//
// The apply_patch file tool: one call that changes several files, one
// change line that names them all, so one undo puts them all back. It takes
// a git diff or a "*** Begin Patch" envelope (engine/internal/patch parses
// both) and runs in the steps of the other file tools (tools.go), for
// every file at once:
//
//  1. plan: every name is resolved inside the workspace (as write, edit and
//     rm resolve theirs), every file read and every hunk applied in memory,
//     before anything is captured (tools.PlanPatch); a patch that does not
//     apply is refused whole (a *PatchError), naming the file and the hunk, and changes
//     nothing;
//  2. the pre-image of every file is captured (created: absent; deleted,
//     and both sides of a rename), and the required ones checked, file by
//     file;
//  3. the change line naming every file is appended and synced while the
//     new contents are staged beside their names and fsynced, and while the
//     folder sync of the file tool before it may still be under way;
//  4. then, once all are over, each file is swapped in or removed, in the
//     patch's order.
//
// A crash in step 4 leaves each file old or new (each swap is atomic). The
// next owner settles the change (changes_recover.go): every file still
// old, it was never made (an abort line); some old and some new, the new
// ones get their pre-image back and then the abort is written, so a patch
// is never left half applied (patch_recover.go). A swap that fails while
// the tool runs is settled the same way at once.
package tools
