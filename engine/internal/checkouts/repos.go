package checkouts

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path"
	"slices"
	"sort"

	"cairn/engine/internal/layout"
	"cairn/internal/vfs"
)

// repoFile is what cairn keeps of a repository's checkouts.
type repoFile struct {
	V         int      `json:"v"`
	CommonDir string   `json:"common_dir"`
	Checkouts []string `json:"checkouts"`
}

func repoName(common string) string {
	h := sha256.Sum256([]byte(common))
	return path.Join(layout.Repos, hex.EncodeToString(h[:8])+".json")
}

func readRepo(fsys vfs.FS, common string) repoFile {
	rf := repoFile{V: 1, CommonDir: common}
	if b, err := vfs.ReadFile(fsys, repoName(common)); err == nil {
		var r repoFile
		if json.Unmarshal(b, &r) == nil && r.CommonDir == common {
			rf = r
		}
	}
	return rf
}

// Known is the checkouts of the repository whose common folder is common
// that the state folder fsys keeps (Note), sorted.
func Known(fsys vfs.FS, common string) []string { return readRepo(fsys, common).Checkouts }

// Note keeps the live checkouts of repo in the state folder fsys, so the
// sessions of one later removed with its metadata are still found. It
// writes only when one is new.
func Note(fsys vfs.FS, repo *Repository) error {
	rf := readRepo(fsys, repo.CommonDir)
	changed := false
	for _, c := range repo.Checkouts {
		if !c.Gone && !slices.Contains(rf.Checkouts, c.Path) {
			rf.Checkouts = append(rf.Checkouts, c.Path)
			changed = true
		}
	}
	if !changed {
		return nil
	}
	sort.Strings(rf.Checkouts)
	b, err := json.Marshal(rf)
	if err != nil {
		return err
	}
	if err := vfs.MkdirAllDurable(fsys, layout.Repos, vfs.DirPerm); err != nil {
		return err
	}
	return vfs.WriteFileAtomic(fsys, repoName(repo.CommonDir), append(b, '\n'))
}
