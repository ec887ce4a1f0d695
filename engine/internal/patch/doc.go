// Package patch parses the patches the apply_patch file tool takes, in two
// shapes, into the files they change and, for each, how its content
// changes:
//
//   - git unified diffs as git prints them (renames, copies, mode changes,
//     new and deleted files, binary patches from `git diff --binary`),
//     parsed and applied by github.com/bluekeyes/go-gitdiff; a hunk must
//     apply where its header says, as `git apply` without fuzz would;
//   - the "*** Begin Patch" envelope that Codex models emit (Add File,
//     Update File with "@@" context hunks and an optional Move to, Delete
//     File, End of File), parsed here (envelope.go). Its context lines are
//     found as Codex finds them: exactly, then ignoring trailing white
//     space, then ignoring surrounding white space, then with typographic
//     dashes, quotes and spaces read as their ASCII forms.
//
// # Words
//
//   - File: one file of a patch: its kind (Add, Update, Delete), the name
//     it has and the name it gets (a rename or a copy), the executable bit
//     it gets, and NewContent, which turns its old content into the new
//     one or says which hunk does not apply.
//   - Parse: a patch's text to its files, whichever the shape.
//
// # Rules
//
// It reads no files and knows no workspace: names are as the patch spells
// them (the caller resolves them inside its workspace) and contents are
// given to NewContent. A malformed patch is an error of Parse; a hunk that
// does not fit the content is a *HunkError of NewContent. It imports
// go-gitdiff only.
package patch
