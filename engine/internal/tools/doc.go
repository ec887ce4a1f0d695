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
// It holds no locks and writes no line: the engine's file tools
// (tools_run.go, patch_run.go) hold the session's locks and write the
// change line, and resolve names inside the workspace (a Resolver). Its
// errors wrap the engine's sentinels (errs.ErrBadInput, errs.ErrRefused)
// and read as the engine's.
package tools
