package cli

import (
	"context"
	"fmt"
	"reflect"
	"strings"

	"github.com/alecthomas/kong"

	"cairn/engine"
)

// workspace is the engine workspace of the directory the command acts in.
func (g *Globals) workspace() (*engine.Workspace, error) {
	s, err := g.open()
	if err != nil {
		return nil, err
	}
	dir, err := g.dir()
	if err != nil {
		return nil, err
	}
	ws, err := s.Workspace(dir)
	if err != nil {
		return nil, err
	}
	if r := ws.Repaired(); r != "" {
		fmt.Fprintln(g.stderr, "cairn:", r)
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
	id, err := resolve(g.ctx, ws, ref)
	if err != nil {
		return nil, "", err
	}
	return ws, id, nil
}

// openSession takes ownership of a session for one plumbing call.
func (g *Globals) openSession(ref string) (*engine.Workspace, *engine.Session, error) {
	ws, id, err := g.resolveSession(ref)
	if err != nil {
		return nil, nil, err
	}
	s, err := ws.Open(g.ctx, id, g.plumbingOpts())
	if err != nil {
		return nil, nil, err
	}
	return ws, s, nil
}

// view reads a session without ownership.
func (g *Globals) view(ref string) (*engine.Workspace, *engine.View, error) {
	ws, id, err := g.resolveSession(ref)
	if err != nil {
		return nil, nil, err
	}
	v, err := ws.Read(g.ctx, id)
	if err != nil {
		return nil, nil, err
	}
	return ws, v, nil
}

// checkSessionRefs refuses a session reference given but empty (--session "",
// -r "", a SESSION argument ""). Leaving a reference out means the newest
// session for some commands; an empty one, as a script with an unset
// variable gives, must not silently mean the same.
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
		if v.Name != "session" && v.Name != "resume" || v.Target.Kind() != reflect.String {
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

// plumbingOpts are the options a plumbing command opens or creates a
// session with: what the session has to tell its user (such as nearing the
// eager-load ceiling) goes to stderr, one line each.
func (g *Globals) plumbingOpts() engine.SessionOptions {
	return engine.SessionOptions{Notice: func(msg string) { fmt.Fprintln(g.stderr, "cairn:", msg) }}
}
