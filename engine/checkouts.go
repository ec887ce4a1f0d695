package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"cairn/internal/vfs"
)

// Other checkouts of a repository: the worktrees of one git repository,
// read from the repository's own files as `git worktree list` reads them,
// with no git process:
//
//   - a checkout's .git is a folder (the main worktree: the common folder)
//     or a file "gitdir: DIR" (a linked worktree: DIR is
//     <common>/worktrees/<name>, whose "commondir" file names the common
//     folder, relative to DIR);
//   - <common>/worktrees/<name>/gitdir names each linked worktree's .git
//     file; a worktree whose folder is gone is still listed there until
//     `git worktree prune` (and is then marked Gone here);
//   - the main worktree is the common folder's parent when the common
//     folder is named .git (a bare repository has none).
//
// So that sessions left in a worktree removed with `git worktree remove`
// (which takes its metadata away) are still found, cairn keeps the
// checkouts it saw sessions in (Part of the format):
//
//	repos/<16 hex of SHA-256 of the common folder>.json
//	  {"v":1,"common_dir":DIR,"checkouts":[DIR,...]}
//
// written whole (temp, fsync, rename) when a checkout is first seen.

// Checkout is one worktree of a repository.
type Checkout struct {
	Path    string `json:"path"`
	Name    string `json:"name"` // the worktree's name; "" for the main one
	Main    bool   `json:"main"`
	Gone    bool   `json:"gone"`    // its folder no longer exists
	Current bool   `json:"current"` // it holds the directory asked about
	Branch  string `json:"branch"`
}

// Repository is the checkouts of the repository holding a directory.
type Repository struct {
	CommonDir string     `json:"common_dir"`
	Checkouts []Checkout `json:"checkouts"` // the main one first, then by path
}

// Current is the checkout holding the directory asked about.
func (r *Repository) Current() *Checkout {
	for i := range r.Checkouts {
		if r.Checkouts[i].Current {
			return &r.Checkouts[i]
		}
	}
	return nil
}

// Checkouts reads the worktrees of the git repository holding dir. It
// returns nil (and no error) when dir is in no repository.
func Checkouts(dir string) (*Repository, error) {
	dir, err := Canonical(dir)
	if err != nil {
		return nil, err
	}
	top, dotgit := "", ""
	for d := dir; ; {
		if fi, err := os.Lstat(filepath.Join(d, ".git")); err == nil && (fi.IsDir() || fi.Mode().IsRegular()) {
			top, dotgit = d, filepath.Join(d, ".git")
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			return nil, nil
		}
		d = parent
	}
	common := dotgit
	if fi, _ := os.Lstat(dotgit); fi.Mode().IsRegular() {
		gd, err := gitdirOf(dotgit)
		if err != nil {
			return nil, err
		}
		common = gd
		if b, err := readHead(filepath.Join(gd, "commondir")); err == nil {
			c := strings.TrimSpace(string(b))
			if !filepath.IsAbs(c) {
				c = filepath.Join(gd, c)
			}
			common = filepath.Clean(c)
		}
	}
	if c, err := filepath.EvalSymlinks(common); err == nil {
		common = c
	}
	repo := &Repository{CommonDir: common}
	if filepath.Base(common) == ".git" {
		repo.Checkouts = append(repo.Checkouts, checkoutAt(filepath.Dir(common), "", true))
	}
	ents, _ := os.ReadDir(filepath.Join(common, "worktrees"))
	var linked []Checkout
	for _, e := range ents {
		b, err := readHead(filepath.Join(common, "worktrees", e.Name(), "gitdir"))
		if err != nil {
			continue
		}
		g := strings.TrimSpace(string(b))
		if !filepath.IsAbs(g) {
			g = filepath.Join(common, "worktrees", e.Name(), g)
		}
		linked = append(linked, checkoutAt(filepath.Dir(filepath.Clean(g)), e.Name(), false))
	}
	sort.Slice(linked, func(i, j int) bool { return linked[i].Path < linked[j].Path })
	repo.Checkouts = append(repo.Checkouts, linked...)
	for i := range repo.Checkouts {
		if repo.Checkouts[i].Path == top {
			repo.Checkouts[i].Current = true
		}
	}
	return repo, nil
}

// gitdirOf reads a worktree's .git file: "gitdir: DIR", DIR relative to
// the file's folder unless absolute.
func gitdirOf(dotgit string) (string, error) {
	b, err := readHead(dotgit)
	if err != nil {
		return "", err
	}
	g, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return "", fmt.Errorf("engine: %s is not a worktree's .git file", dotgit)
	}
	g = strings.TrimSpace(g)
	if !filepath.IsAbs(g) {
		g = filepath.Join(filepath.Dir(dotgit), g)
	}
	return filepath.Clean(g), nil
}

func checkoutAt(p, name string, main bool) Checkout {
	c := Checkout{Path: p, Name: name, Main: main}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		c.Path = real
	}
	if fi, err := os.Stat(c.Path); err != nil || !fi.IsDir() {
		c.Gone = true
	} else {
		c.Branch = gitBranch(c.Path)
		if c.Branch == "" {
			c.Branch = worktreeBranch(c.Path)
		}
	}
	return c
}

// worktreeBranch reads the branch of a linked worktree from the HEAD of its
// gitdir, "" when detached or unreadable.
func worktreeBranch(p string) string {
	gd, err := gitdirOf(filepath.Join(p, ".git"))
	if err != nil {
		return ""
	}
	b, err := readHead(filepath.Join(gd, "HEAD"))
	if err != nil {
		return ""
	}
	r, _ := strings.CutPrefix(strings.TrimSpace(string(b)), "ref: refs/heads/")
	if strings.HasPrefix(r, "ref: ") || len(r) == 40 {
		return ""
	}
	return r
}

// CheckoutSessions is one other checkout's sessions, as the picker and
// `cairn sessions --all-checkouts` list them below the directory's own.
type CheckoutSessions struct {
	Checkout
	Sessions []Summary
}

// OtherCheckouts lists the sessions of the other checkouts of the
// repository holding dir, one section per checkout (the main one first):
// the sessions of the checkout's folder and of the folders inside it that
// belong to no nearer checkout. A checkout without sessions has none.
// Nil when dir is in no repository or the repository has one checkout.
func (s *Store) OtherCheckouts(ctx context.Context, dir string) (*Repository, []CheckoutSessions, error) {
	repo, err := Checkouts(dir)
	if err != nil || repo == nil || len(repo.Checkouts) < 2 {
		return repo, nil, err
	}
	wss, _, err := s.Workspaces()
	if err != nil {
		return repo, nil, err
	}
	here, _ := Canonical(dir)
	var out []CheckoutSessions
	for _, c := range repo.Checkouts {
		if c.Current {
			continue
		}
		sec := CheckoutSessions{Checkout: c}
		for _, w := range wss {
			if w.path == here || owningCheckout(repo, w.path) != c.Path {
				continue
			}
			l, _, err := w.List(ctx)
			if err != nil {
				return repo, nil, err
			}
			sec.Sessions = append(sec.Sessions, l...)
		}
		s.SortSummaries(sec.Sessions)
		out = append(out, sec)
	}
	return repo, out, nil
}

// owningCheckout is the path of the nearest checkout of repo holding p, "".
func owningCheckout(repo *Repository, p string) string {
	best := ""
	for _, c := range repo.Checkouts {
		if (p == c.Path || strings.HasPrefix(p, c.Path+"/")) && len(c.Path) > len(best) {
			best = c.Path
		}
	}
	return best
}

// repoFile is what cairn keeps of a repository's checkouts.
type repoFile struct {
	V         int      `json:"v"`
	CommonDir string   `json:"common_dir"`
	Checkouts []string `json:"checkouts"`
}

func repoName(common string) string {
	h := sha256.Sum256([]byte(common))
	return path.Join("repos", hex.EncodeToString(h[:8])+".json")
}

func (s *Store) readRepo(common string) repoFile {
	rf := repoFile{V: 1, CommonDir: common}
	if b, err := vfs.ReadFile(s.fsys, repoName(common)); err == nil {
		var r repoFile
		if json.Unmarshal(b, &r) == nil && r.CommonDir == common {
			rf = r
		}
	}
	return rf
}

// NoteCheckouts remembers the live checkouts of repo (so sessions of one
// later removed with its metadata are still found). It writes only when
// one is new.
func (s *Store) NoteCheckouts(repo *Repository) error {
	if repo == nil || s.ephemeral {
		return nil
	}
	rf := s.readRepo(repo.CommonDir)
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
	if err := vfs.MkdirAllDurable(s.fsys, "repos", vfs.DirPerm); err != nil {
		return err
	}
	return vfs.WriteFileAtomic(s.fsys, repoName(repo.CommonDir), append(b, '\n'))
}

// Returned is a removed checkout whose sessions moved back.
type Returned struct {
	From     string   `json:"from"` // the removed checkout (or a folder in it)
	To       string   `json:"to"`
	Sessions []string `json:"sessions"`
	Err      string   `json:"error,omitempty"` // why they could not move (a session open elsewhere)
}

// ReturnFromRemovedCheckouts moves the sessions left in removed worktrees
// of the repository holding dir back to a remaining checkout: the main
// one, else the checkout holding dir. A removed worktree is one the
// repository still lists with its folder gone, or one cairn saw sessions
// in (repos/) whose folder is gone. Each moves as migrate-sessions moves a
// directory, usage included. A session open in another process is left
// for next time, and said.
func (s *Store) ReturnFromRemovedCheckouts(ctx context.Context, dir string) ([]Returned, error) {
	repo, err := Checkouts(dir)
	if err != nil || repo == nil || s.ephemeral {
		return nil, err
	}
	s.NoteCheckouts(repo) // best effort
	var target string
	for _, c := range repo.Checkouts {
		if !c.Gone && (c.Main || target == "" && c.Current) {
			target = c.Path
		}
	}
	if target == "" {
		return nil, nil
	}
	gone := map[string]bool{}
	for _, c := range repo.Checkouts {
		if c.Gone {
			gone[c.Path] = true
		}
	}
	for _, p := range s.readRepo(repo.CommonDir).Checkouts {
		if _, err := os.Stat(p); os.IsNotExist(err) {
			gone[p] = true
		}
	}
	if len(gone) == 0 {
		return nil, nil
	}
	wss, _, err := s.Workspaces()
	if err != nil {
		return nil, err
	}
	var out []Returned
	for _, w := range wss {
		from := ""
		for g := range gone {
			if w.path == g || strings.HasPrefix(w.path, g+"/") {
				from = w.path
			}
		}
		if from == "" || len(s.sessionsIn(w.dir)) == 0 {
			continue
		}
		r := Returned{From: from, To: target}
		res, err := s.MigrateSessions(ctx, from, target, MigrateOptions{})
		if res != nil {
			r.Sessions = res.Sessions
		}
		if err != nil {
			r.Err = err.Error()
		}
		out = append(out, r)
	}
	return out, nil
}
