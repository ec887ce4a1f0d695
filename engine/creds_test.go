package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cairn/internal/vfs"
)

func TestCredentials(t *testing.T) {
	m := vfs.NewMem()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	a, b := newSessionID(), newSessionID()

	if l, err := ReadCredentials(m); err != nil || len(l) != 0 {
		t.Fatalf("no file: %v %v", l, err)
	}
	tok1, c1, err := AddCredential(m, now, []string{ScopeAttach}, []string{b, a, b})
	if err != nil {
		t.Fatal(err)
	}
	tok2, _, err := AddCredential(m, now, nil, []string{a})
	if err != nil {
		t.Fatal(err)
	}
	l, err := ReadCredentials(m)
	if err != nil || len(l) != 2 {
		t.Fatalf("read: %v %v", l, err)
	}
	if got := l[0]; got.ID != c1.ID || len(got.Sessions) != 2 || !got.Allows(a) || !got.Allows(b) || !got.Has(ScopeAttach) {
		t.Fatalf("first credential %+v", got)
	}
	if l[1].Has(ScopeAttach) || l[1].Allows(b) || !l[1].Allows(a) {
		t.Fatalf("second credential %+v", l[1])
	}
	if !l[0].Matches(tok1) || l[0].Matches(tok2) || l[1].Matches(tok1) || !l[1].Matches(tok2) || l[0].Matches("") {
		t.Fatal("Matches")
	}
	raw, err := vfs.ReadFile(m, CredentialsFile)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), tok1) || strings.Contains(string(raw), tok2) {
		t.Fatalf("a token is stored: %s", raw)
	}

	// Refused: an unknown scope, no session, something that is not an id.
	for _, c := range []struct {
		scopes, sessions []string
	}{{[]string{"root"}, []string{a}}, {nil, nil}, {nil, []string{"../x"}}} {
		if _, _, err := AddCredential(m, now, c.scopes, c.sessions); !errors.Is(err, ErrBadInput) {
			t.Fatalf("%v %v: %v", c.scopes, c.sessions, err)
		}
	}
	if l, _ := ReadCredentials(m); len(l) != 2 {
		t.Fatalf("a refused pairing changed the file: %d credentials", len(l))
	}

	// A damaged or newer file is an error, not an empty list.
	vfs.WriteFileAtomic(m, CredentialsFile, []byte(`{"v":2,"credentials":[]}`))
	if _, err := ReadCredentials(m); !errors.Is(err, ErrFormat) {
		t.Fatalf("v2: %v", err)
	}
	// A damaged one is ErrBadCredentials (a failure, not bad usage), and
	// pairing on it writes nothing.
	for _, bad := range []string{`{"v":1,`, ``, `[]`, `{"v":0,"credentials":[]}`, `{"credentials":[]}`,
		`{"v":1,"credentials":[{"id":"p-1","sha256":"zz","scopes":["attach"],"sessions":[]}]}`} {
		vfs.WriteFileAtomic(m, CredentialsFile, []byte(bad))
		_, err := ReadCredentials(m)
		if !errors.Is(err, ErrBadCredentials) || errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "cairn pair") {
			t.Fatalf("%q: %v", bad, err)
		}
		if _, _, err := AddCredential(m, now, []string{ScopeAttach}, []string{a}); !errors.Is(err, ErrBadCredentials) {
			t.Fatalf("pair on %q: %v", bad, err)
		}
		if b, _ := vfs.ReadFile(m, CredentialsFile); string(b) != bad {
			t.Fatalf("pair on %q wrote %q", bad, b)
		}
	}
}

// TestCredentialsDamagedInStore: the store's errors name the file by its
// path, and fsck names it.
func TestCredentialsDamagedInStore(t *testing.T) {
	s, _ := testStore(t)
	name := filepath.Join(s.Home(), CredentialsFile)
	if err := os.WriteFile(name, []byte(`{"v":1,"credentials":[{"id"`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := s.Credentials()
	if !errors.Is(err, ErrBadCredentials) || !strings.Contains(err.Error(), name) {
		t.Fatalf("Credentials: %v", err)
	}
	if _, _, err := s.Pair(context.Background(), []string{ScopeAttach}, []string{newSessionID()}); !errors.Is(err, ErrBadCredentials) || !strings.Contains(err.Error(), name) {
		t.Fatalf("Pair: %v", err)
	}
	r, err := s.Fsck(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Problems) != 1 || r.Problems[0].Path != CredentialsFile || !strings.Contains(r.Problems[0].Problem, "damaged") {
		t.Fatalf("fsck problems %+v", r.Problems)
	}
	os.Remove(name)
	if r, err := s.Fsck(context.Background()); err != nil || len(r.Problems) != 0 {
		t.Fatalf("fsck without credentials.json: %+v %v", r, err)
	}
}

func TestGatewayToken(t *testing.T) {
	d, err := vfs.OpenDisk(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	tok, made, err := GatewayToken(d, GatewayTokenFile)
	if err != nil || !made || len(tok) != 64 {
		t.Fatalf("first: %q %v %v", tok, made, err)
	}
	fi, err := d.Stat(GatewayTokenFile)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode: %v %v", fi, err)
	}
	again, made, err := GatewayToken(d, GatewayTokenFile)
	if err != nil || made || again != tok {
		t.Fatalf("second: %q %v %v", again, made, err)
	}
	if !TokenEqual(tok, again) || TokenEqual(tok, tok[:63]) || TokenEqual(tok, "") {
		t.Fatal("TokenEqual")
	}
	if HashToken(tok) == HashToken(tok[:63]) || len(HashToken(tok)) != 64 {
		t.Fatal("HashToken")
	}

	if err := d.Chmod(GatewayTokenFile, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := GatewayToken(d, GatewayTokenFile); !errors.Is(err, ErrBadInput) {
		t.Fatalf("0644 token file: %v", err)
	}
	if err := vfs.WriteFileAtomic(d, "short", []byte("abc\n")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := GatewayToken(d, "short"); !errors.Is(err, ErrBadInput) {
		t.Fatalf("short token: %v", err)
	}
}
