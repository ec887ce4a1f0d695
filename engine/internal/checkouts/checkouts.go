package checkouts

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

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

// Owning is the path of the nearest checkout of r holding p, or "".
func (r *Repository) Owning(p string) string {
	best := ""
	for _, c := range r.Checkouts {
		if (p == c.Path || strings.HasPrefix(p, c.Path+"/")) && len(c.Path) > len(best) {
			best = c.Path
		}
	}
	return best
}

// Read reads the worktrees of the git repository holding dir, a canonical
// directory. It returns nil (and no error) when dir is in no repository.
func Read(dir string) (*Repository, error) {
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
		c.Branch = Branch(c.Path)
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

// Branch reads the branch of the repository holding dir from .git/HEAD,
// or "" when dir is not in a repository or HEAD is detached.
func Branch(dir string) string {
	for d := dir; ; {
		b, err := readHead(filepath.Join(d, ".git", "HEAD"))
		if err == nil {
			s := strings.TrimSpace(string(b))
			if r, ok := strings.CutPrefix(s, "ref: refs/heads/"); ok {
				return r
			}
			return ""
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

// readHead reads a small git file (HEAD, gitdir, commondir) without
// waiting on a FIFO or a device put in its place.
func readHead(name string) ([]byte, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", name)
	}
	return io.ReadAll(io.LimitReader(f, 4096))
}
