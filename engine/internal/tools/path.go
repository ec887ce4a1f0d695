package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"cairn/engine/internal/errs"
	"cairn/internal/vfs"
)

// What the file tools (write, edit, rm, apply_patch) may write, beyond the
// workspace and state-folder rules of the engine's relPath and the fence: never a name
// a symbolic link on its way leads to (the link is not followed, as it is
// not for the name itself), and nothing inside a repository's version
// control folder unless config.json's tools.write_vcs_folders allows it (writeVCS):
// git runs the hooks and the commands of the config it finds in .git
// (core.fsmonitor, core.pager, diff drivers) at the next git command, so a
// tool call could plant code the user then runs. Shell lines are recorded,
// not refused: what a program writes cannot be told before it runs.

// vcsFolders are the folders version control keeps its own state in.
var vcsFolders = []string{".git", ".jj", ".hg"}

// VCSFolderOf is the version control folder of workspace-relative rel: the
// first of its names that is one of vcsFolders (compared without case, as
// a case-insensitive filesystem opens them), or "".
func VCSFolderOf(rel string) string {
	for _, part := range strings.Split(rel, "/") {
		if slices.ContainsFunc(vcsFolders, func(v string) bool { return strings.EqualFold(part, v) }) {
			return part
		}
	}
	return ""
}

// CheckPath refuses rel (given as orig) for a file tool: inside a version
// control folder (ErrRefused, unless writeVCS), or below a folder name
// that is a symbolic link (ErrBadInput).
func CheckPath(fsys vfs.FS, writeVCS bool, rel, orig string) error {
	if v := VCSFolderOf(rel); v != "" && !writeVCS {
		return fmt.Errorf("%w: %s is inside a repository's %s folder: the file tools do not write there, since git runs the hooks and commands it finds there (tools.write_vcs_folders in config.json allows it)",
			errs.ErrRefused, orig, v)
	}
	for dir := path.Dir(rel); dir != "."; dir = path.Dir(dir) {
		fi, err := fsys.Lstat(dir)
		if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%w: %s: %s is a symbolic link; the file tools do not follow links", errs.ErrBadInput, orig, dir)
		}
	}
	return nil
}

// FencedOff reports whether rel's folder, or its nearest folder that
// exists, lies in a state folder, whatever links lead there.
func FencedOff(fsys vfs.FS, rel string) bool {
	f, ok := fsys.(*vfs.Fenced)
	if !ok {
		return false
	}
	for dir := path.Dir(rel); ; dir = path.Dir(dir) {
		err := f.Check(dir)
		if !vfs.IsNotExist(err) || dir == "." {
			return errors.Is(err, vfs.ErrFenced)
		}
	}
}

// FileName refuses a file tool's name that ends with "/" (or "/."): it
// names a folder, and cleaning it into a file's name would make or remove
// a file the name does not say.
func FileName(p string) error {
	if s := filepath.ToSlash(p); strings.HasSuffix(s, "/") || strings.HasSuffix(s, "/.") {
		return fmt.Errorf("%w: %s ends with /: it names a folder, not a file", errs.ErrBadInput, p)
	}
	return nil
}
