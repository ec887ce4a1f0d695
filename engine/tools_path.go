package engine

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"cairn/internal/vfs"
)

// What the file tools (write, edit, rm, apply_patch) may write, beyond the
// workspace and state-folder rules of relPath and the fence: never a name
// a symbolic link on its way leads to (the link is not followed, as it is
// not for the name itself), and nothing inside a repository's version
// control folder unless config.json's tools.write_vcs_folders allows it:
// git runs the hooks and the commands of the config it finds in .git
// (core.fsmonitor, core.pager, diff drivers) at the next git command, so a
// tool call could plant code the user then runs. Shell lines are recorded,
// not refused: what a program writes cannot be told before it runs.

// vcsFolders are the folders version control keeps its own state in.
var vcsFolders = []string{".git", ".jj", ".hg"}

// vcsFolderOf is the version control folder of workspace-relative rel: the
// first of its names that is one of vcsFolders (compared without case, as
// a case-insensitive filesystem opens them), or "".
func vcsFolderOf(rel string) string {
	for _, part := range strings.Split(rel, "/") {
		if slices.ContainsFunc(vcsFolders, func(v string) bool { return strings.EqualFold(part, v) }) {
			return part
		}
	}
	return ""
}

// toolPath refuses rel (given as orig) for a file tool: inside a version
// control folder (ErrRefused, unless cfg allows it), or below a folder
// name that is a symbolic link (ErrBadInput).
func toolPath(fsys vfs.FS, cfg Config, rel, orig string) error {
	if v := vcsFolderOf(rel); v != "" && !cfg.Tools.WriteVCSFolders {
		return fmt.Errorf("%w: %s is inside a repository's %s folder: the file tools do not write there, since git runs the hooks and commands it finds there (tools.write_vcs_folders in config.json allows it)",
			ErrRefused, orig, v)
	}
	for dir := path.Dir(rel); dir != "."; dir = path.Dir(dir) {
		fi, err := fsys.Lstat(dir)
		if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%w: %s: %s is a symbolic link; the file tools do not follow links", ErrBadInput, orig, dir)
		}
	}
	return nil
}
