package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/alecthomas/kong"

	"cairn/cli/display"
	"cairn/engine"
)

// workspace is the engine workspace of the directory the command acts in.
func (g *Globals) workspace() (*engine.Workspace, error) {
	s, err := g.Open()
	if err != nil {
		return nil, err
	}
	dir, err := g.Dir()
	if err != nil {
		return nil, err
	}
	ws, err := s.Workspace(dir)
	if errors.Is(err, fs.ErrNotExist) && filepath.IsAbs(dir) {
		// A directory that is gone: its sessions are still there to read.
		if gone, gerr := s.GoneWorkspace(dir); gerr == nil {
			return gone, nil
		}
	}
	if err != nil {
		return nil, err
	}
	if r := ws.Repaired(); r != "" {
		say(g.Stderr, r)
	}
	return ws, nil
}

// resolve turns a SESSION argument (full id, unique prefix, exact title)
// into an id; an empty one means the most recently written session.
func resolve(ctx context.Context, ws *engine.Workspace, ref string) (string, error) {
	if ref == "" {
		return ws.Latest(ctx)
	}
	return ws.Resolve(ctx, ref)
}

// resolveSession is the workspace of the command's directory and the id of
// the session ref names there.
func (g *Globals) resolveSession(ref string) (*engine.Workspace, string, error) {
	ws, err := g.workspace()
	if err != nil {
		return nil, "", err
	}
	id, err := resolve(g.Ctx, ws, ref)
	if err != nil {
		s, _ := g.Open()
		if gone := goneHome(g.Ctx, s, ref); gone != nil {
			// A session of a directory that is gone (an import from
			// another machine): it can be run nowhere else, so it is
			// read, and resumed, from here.
			return gone, strings.TrimSpace(ref), nil
		}
		return nil, "", notHere(g.Ctx, s, ws, err, ref)
	}
	return ws, id, nil
}

// goneHome is the workspace of the session whose full id ref is, when its
// directory no longer exists; nil otherwise.
func goneHome(ctx context.Context, s *engine.Store, ref string) *engine.Workspace {
	if s == nil {
		return nil
	}
	w, err := s.FindSession(ctx, strings.TrimSpace(ref))
	if err != nil {
		return nil
	}
	if _, err := os.Stat(w.Path()); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return w
}

// notHere adds to err, a session not found in ws's directory, where the
// session is when ref is the full id of a session of another directory: a
// session belongs to the directory it ran in, and an id pasted from a
// resume line printed elsewhere is found only there.
func notHere(ctx context.Context, s *engine.Store, ws *engine.Workspace, err error, ref string) error {
	if s == nil || !errors.Is(err, engine.ErrNotFound) {
		return err
	}
	other, ferr := s.FindSession(ctx, strings.TrimSpace(ref))
	if ferr != nil || other.Path() == ws.Path() {
		return err
	}
	dir := display.Line(other.Path())
	return fmt.Errorf("%w; it is a session of %s (run cairn there, or with -C %s)", err, dir, dir)
}

// openSession takes ownership of a session for one plumbing call.
func (g *Globals) openSession(ref string) (*engine.Workspace, *engine.Session, error) {
	ws, id, err := g.resolveSession(ref)
	if err != nil {
		return nil, nil, err
	}
	s, err := ws.Open(g.Ctx, id, g.SessionOptions())
	if err != nil {
		return nil, nil, err
	}
	return ws, s, nil
}

// checkSessionRefs refuses a session reference given but empty (--session "",
// -r "", a SESSION argument "", a member of pair --sessions), an item flag
// given but empty (--at "", --parent "", --call "": every flag whose
// placeholder is ITEM), and an empty SNAP (snapshots restore ""). Leaving
// a reference out means the newest session, or the head, for some
// commands; an empty one, as a script with an unset variable gives, must
// not silently mean the same.
func checkSessionRefs(kctx *kong.Context) error {
	for _, p := range kctx.Path {
		var v *kong.Value
		switch {
		case p.Flag != nil:
			v = p.Flag.Value
		case p.Positional != nil:
			v = p.Positional
		default:
			continue
		}
		if v.Name == "sessions" && v.Target.Kind() == reflect.Slice {
			// pair --sessions a,,b: an empty member is an unset variable too.
			for i := range v.Target.Len() {
				if strings.TrimSpace(v.Target.Index(i).String()) == "" {
					return usageErrorf("empty session reference in --sessions: each needs a session id, prefix or title")
				}
			}
			continue
		}
		if v.Target.Kind() != reflect.String {
			continue
		}
		if p.Flag != nil && p.Flag.PlaceHolder == "ITEM" && strings.TrimSpace(v.Target.String()) == "" {
			return usageErrorf("empty item reference: --%s needs an item id, or N for the Nth item of the head path", v.Name)
		}
		if p.Positional != nil && v.Name == "snap" && strings.TrimSpace(v.Target.String()) == "" {
			// Every snapshot id starts with "": with one snapshot it would
			// be the one meant, and the whole stack undone.
			return usageErrorf("empty snapshot reference: SNAP needs the # cairn snapshots shows, an id, or a unique prefix")
		}
		if v.Name != "session" && v.Name != "resume" {
			continue
		}
		if strings.TrimSpace(v.Target.String()) == "" {
			what := "SESSION"
			if p.Flag != nil {
				what = "--" + v.Name
			}
			return usageErrorf("empty session reference: %s needs a session id, prefix or title", what)
		}
	}
	return nil
}
