// Package scope will say which workspace files a change record covers.
// It holds nothing yet: it is the place whole-directory recording fills,
// so that its mechanisms never land in package engine.
//
// # What will live here
//
//   - The workspace walk of a whole-directory record: every file under the
//     workspace, over vfs.FS, honouring each folder's .gitignore and the
//     top-level excludes, following no link, stopping at nested
//     repositories, special files and other filesystems, and re-reading
//     only files whose stat data changed (a stat cache with a racy-mtime
//     window).
//   - Shell-line scope detection: a shell command line turned into the
//     paths it writes, or "the whole directory" when that cannot be told.
//
// # Rules
//
// Like every package below engine it holds no locks and knows no Session:
// the caller serializes. It may import internal/vfs; engine imports it,
// never the reverse.
package scope
