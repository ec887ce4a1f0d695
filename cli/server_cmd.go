package cli

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"time"

	"cairn/cli/cmdbase"
	"cairn/engine"
	"cairn/httpapi"
)

// ServeCmd is `cairn serve`: the HTTP API for the sessions no process owns.
type ServeCmd struct {
	Addr        string `name:"addr" default:"127.0.0.1:7433" placeholder:"HOST:PORT" help:"Address to listen on (loopback unless --allow-remote)."`
	TokenFile   string `name:"token-file" placeholder:"FILE" help:"Gateway token file, made 0600 on first start (default <state folder>/gateway.token)."`
	AllowRemote bool   `name:"allow-remote" help:"Allow an --addr that is not a loopback address."`
}

// PairCmd is `cairn pair`: a paired credential for the HTTP API.
type PairCmd struct {
	Sessions []string `name:"sessions" required:"" sep:"," placeholder:"S,..." help:"Sessions the credential may see (id, unique prefix or exact title)."`
	Scope    []string `name:"scope" placeholder:"SCOPE" help:"Grant a scope; attach reads and restores snapshots. Repeatable."`
}

// ListenFlags are the REPL's flags for serving its own session.
type ListenFlags struct {
	Listen      string `name:"listen" placeholder:"ADDR" help:"Serve the HTTP API for this session on ADDR (loopback unless --allow-remote)."`
	AllowRemote bool   `name:"allow-remote" help:"Allow a --listen address that is not a loopback address."`
}

// checkLoopback refuses an address that is not loopback unless allowed.
func checkLoopback(flag, addr string, allowRemote bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return usageErrorf("%s %q: %v", flag, addr, err)
	}
	if allowRemote {
		return nil
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return usageErrorf("%s %s is not a loopback address; add --allow-remote to serve other hosts", flag, addr)
}

// gatewayToken reads or makes the gateway token: in file when given, else
// in the store's state folder. It returns the token and where it is.
func gatewayToken(s *engine.Store, file string) (string, string, error) {
	if file == "" {
		tok, _, err := httpapi.GatewayToken(s)
		return tok, filepath.Join(s.Home(), httpapi.GatewayTokenFile), err
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return "", "", err
	}
	tok, _, err := httpapi.TokenAt(abs)
	return tok, abs, err
}

func (c *ServeCmd) Run(g *Globals) error {
	if err := checkLoopback("--addr", c.Addr, c.AllowRemote); err != nil {
		return err
	}
	s, err := g.Open()
	if err != nil {
		return err
	}
	tok, where, err := gatewayToken(s, c.TokenFile)
	if err != nil {
		return err
	}
	api := httpapi.NewStoreServer(s, tok, g.Stderr)
	ln, err := net.Listen("tcp", c.Addr)
	if err != nil {
		return err
	}
	if g.JSON {
		g.PrintJSON(map[string]any{"ok": true, "addr": ln.Addr().String(), "token_file": where})
	} else {
		fmt.Fprintf(g.Stdout, "Serving the HTTP API on http://%s (gateway token in %s).\n", ln.Addr(), where)
	}
	srv := httpapi.NewHTTPServer(api.Handler())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-g.Ctx.Done():
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	srv.Shutdown(ctx)
	return nil
}

func (c *PairCmd) Run(g *Globals) error {
	if len(c.Scope) == 0 {
		// A credential without a scope can call nothing: refuse it rather
		// than hand out a token that only fails later.
		return usageErrorf("cairn pair needs --scope: a credential without a scope can do nothing (scopes: %s)", httpapi.ScopeAttach)
	}
	s, err := g.Open()
	if err != nil {
		return err
	}
	ids, err := httpapi.ResolveSessions(g.Ctx, s, c.Sessions)
	if err != nil {
		return err
	}
	tok, cred, err := httpapi.Pair(g.Ctx, s, c.Scope, ids)
	if err != nil {
		return err
	}
	if g.JSON {
		return g.PrintJSON(map[string]any{"ok": true, "id": cred.ID, "token": tok, "scopes": cred.Scopes, "sessions": cred.Sessions})
	}
	scopes := strings.Join(cred.Scopes, ", ")
	if scopes == "" {
		scopes = "none"
	}
	fmt.Fprintf(g.Stdout, "Paired credential %s (scopes: %s; sessions: %s).\n", cred.ID, scopes, strings.Join(cred.Sessions, ", "))
	fmt.Fprintf(g.Stdout, "Its token, shown this once (only its hash is kept):\n%s\n", tok)
	return nil
}

// serving runs loop (the REPL) while serving the REPL's own session on
// f.Listen, when set. The REPL holds the live source's lock except while it
// waits for a line (readLineServing), so requests and REPL commands never
// interleave.
func (r *repl) serving(f ListenFlags, loop func() error) error {
	if f.Listen == "" {
		return loop()
	}
	if err := checkLoopback("--listen", f.Listen, f.AllowRemote); err != nil {
		return err
	}
	home := r.g.Home
	if home == "" {
		h, err := cmdbase.DefaultHome()
		if err != nil {
			return err
		}
		home = h
	}
	// The credentials live in the persistent state folder, whatever store
	// the session itself is in (an ephemeral one, say).
	cs, err := engine.Open(home)
	if err != nil {
		return err
	}
	defer cs.Close()
	tok, where, err := gatewayToken(cs, "")
	if err != nil {
		return err
	}
	live := httpapi.NewLive(func() *engine.Session { return r.sess })
	live.OnRestore(r.toldRestore)
	api := httpapi.NewSessionServer(live, cs, tok, r.errw)
	ln, err := net.Listen("tcp", f.Listen)
	if err != nil {
		return err
	}
	id := ""
	if r.sess != nil {
		id = r.sess.ID()
	}
	fmt.Fprintf(r.errw, "cairn: serving the HTTP API for session %s on http://%s (gateway token in %s)\n", id, ln.Addr(), where)
	srv := httpapi.NewHTTPServer(api.Handler())
	go srv.Serve(ln)
	live.Lock()
	r.live = live
	defer func() {
		live.End()
		r.live = nil
		live.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	}()
	return loop()
}

// readLineServing is readLine that lets HTTP requests in while it waits.
func (r *repl) readLineServing() (string, error) {
	if r.live == nil {
		return r.readLine()
	}
	r.live.Unlock()
	defer r.live.Lock()
	return r.readLine()
}

// toldRestore tells the person at the REPL of a restore an HTTP client made
// while the REPL waited for a line: their files changed under them. Above
// the line being edited when there is a line editor.
func (r *repl) toldRestore(res *engine.RestoreResult) {
	var b strings.Builder
	b.WriteString("An HTTP API client changed this session's files:\n")
	printRestore(&b, r.ws, res)
	text := strings.TrimSuffix(b.String(), "\n")
	if r.ed == nil || !r.ed.Println(text) {
		fmt.Fprintln(r.out, text)
	}
}
