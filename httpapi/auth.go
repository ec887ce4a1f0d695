package httpapi

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"cairn/internal/usermsg"
)

// grant is what a request's bearer token may do: everything (the gateway
// token) or what one paired credential allows.
type grant struct {
	gateway bool
	cred    *Credential
}

func (g grant) has(scope string) bool { return g.gateway || (g.cred != nil && g.cred.Has(scope)) }

func (g grant) allows(id string) bool { return g.gateway || (g.cred != nil && g.cred.Allows(id)) }

type grantKey struct{}

func grantOf(ctx context.Context) grant {
	g, _ := ctx.Value(grantKey{}).(grant)
	return g
}

// authority checks bearer tokens against the gateway token and the paired
// credentials (read on every request, so a new `cairn pair` works at once).
type authority struct {
	gateway string
	creds   func() ([]Credential, error)
}

// bearer is the token of an "Authorization: Bearer T" header, or "".
func bearer(r *http.Request) string {
	h := r.Header.Get("Authorization")
	scheme, tok, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(tok)
}

// lookup finds the grant of token. Every candidate is compared, in constant
// time, whatever matched before. The gateway token needs no credentials
// file: when credentials.json cannot be read it still passes, and any other
// token gets the error (it cannot be checked).
func (a *authority) lookup(token string) (grant, bool, error) {
	var g grant
	found := false
	if tokenEqual(token, a.gateway) {
		g, found = grant{gateway: true}, true
	}
	if a.creds == nil {
		return g, found, nil
	}
	list, err := a.creds()
	if err != nil {
		if found {
			return g, true, nil
		}
		return grant{}, false, err
	}
	for i := range list {
		if list[i].Matches(token) && !found {
			g, found = grant{cred: &list[i]}, true
		}
	}
	return g, found, nil
}

// authenticate answers 401 to a request without a valid bearer token and
// passes the others on with their grant in the context.
func (a *Server) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok := bearer(r)
		if tok == "" {
			w.Header().Set("WWW-Authenticate", `Bearer realm="cairn"`)
			writeError(w, http.StatusUnauthorized, "unauthorized", "a bearer token is required", 0)
			return
		}
		g, ok, err := a.auth.lookup(tok)
		if err != nil {
			a.tellCredentials(err)
			msg := "paired credentials cannot be read now; the server's log says more"
			if errors.Is(err, ErrBadCredentials) {
				msg = "paired credentials cannot be checked: the server's credentials.json is damaged; its log says how to repair it"
			}
			writeError(w, http.StatusServiceUnavailable, "unavailable", msg, 0)
			return
		}
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="cairn", error="invalid_token"`)
			writeError(w, http.StatusUnauthorized, "unauthorized", "the bearer token is wrong", 0)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), grantKey{}, g)))
	})
}

// tellCredentials logs why the paired credentials cannot be read, once for
// each reason, so a polling client does not flood the log.
func (a *Server) tellCredentials(err error) {
	msg := usermsg.Error(err)
	a.logMu.Lock()
	told := a.credsTold == msg
	a.credsTold = msg
	a.logMu.Unlock()
	if !told {
		a.logf("%s; the gateway token still works", msg)
	}
}
