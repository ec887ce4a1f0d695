package httpapi

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"cairn/engine"
	"cairn/internal/vfs"

	"github.com/google/uuid"
)

func TestCredentials(t *testing.T) {
	m := vfs.NewMem()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	a, b := uuid.NewString(), uuid.NewString()

	if l, err := readCredentials(m, CredentialsFile); err != nil || len(l) != 0 {
		t.Fatalf("no file: %v %v", l, err)
	}
	tok1, c1, err := addCredential(m, CredentialsFile, now, []string{ScopeAttach}, []string{b, a, b})
	if err != nil {
		t.Fatal(err)
	}
	tok2, _, err := addCredential(m, CredentialsFile, now, nil, []string{a})
	if err != nil {
		t.Fatal(err)
	}
	l, err := readCredentials(m, CredentialsFile)
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
		if _, _, err := addCredential(m, CredentialsFile, now, c.scopes, c.sessions); !errors.Is(err, engine.ErrBadInput) {
			t.Fatalf("%v %v: %v", c.scopes, c.sessions, err)
		}
	}
	if l, _ := readCredentials(m, CredentialsFile); len(l) != 2 {
		t.Fatalf("a refused pairing changed the file: %d credentials", len(l))
	}

	// A damaged or newer file is an error, not an empty list.
	vfs.WriteFileAtomic(m, CredentialsFile, []byte(`{"v":2,"credentials":[]}`))
	if _, err := readCredentials(m, CredentialsFile); !errors.Is(err, engine.ErrFormat) {
		t.Fatalf("v2: %v", err)
	}
	// A damaged one is ErrBadCredentials (a failure, not bad usage), and
	// pairing on it writes nothing.
	for _, bad := range []string{`{"v":1,`, ``, `[]`, `{"v":0,"credentials":[]}`, `{"credentials":[]}`,
		`{"v":1,"credentials":[{"id":"p-1","sha256":"zz","scopes":["attach"],"sessions":[]}]}`} {
		vfs.WriteFileAtomic(m, CredentialsFile, []byte(bad))
		_, err := readCredentials(m, CredentialsFile)
		if !errors.Is(err, ErrBadCredentials) || errors.Is(err, engine.ErrBadInput) || !strings.Contains(err.Error(), "cairn pair") {
			t.Fatalf("%q: %v", bad, err)
		}
		if _, _, err := addCredential(m, CredentialsFile, now, []string{ScopeAttach}, []string{a}); !errors.Is(err, ErrBadCredentials) {
			t.Fatalf("pair on %q: %v", bad, err)
		}
		if b, _ := vfs.ReadFile(m, CredentialsFile); string(b) != bad {
			t.Fatalf("pair on %q wrote %q", bad, b)
		}
	}
}

// TestCredentialsDamagedInStore: the store's errors name the file by its
// path, and Fsck names it (the engine's fsck does not read it).
func TestCredentialsDamagedInStore(t *testing.T) {
	s, err := engine.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	name := filepath.Join(s.Home(), CredentialsFile)
	if err := os.WriteFile(name, []byte(`{"v":1,"credentials":[{"id"`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Credentials(s)
	if !errors.Is(err, ErrBadCredentials) || !strings.Contains(err.Error(), name) {
		t.Fatalf("Credentials: %v", err)
	}
	if _, _, err := Pair(context.Background(), s, []string{ScopeAttach}, []string{uuid.NewString()}); !errors.Is(err, ErrBadCredentials) || !strings.Contains(err.Error(), name) {
		t.Fatalf("Pair: %v", err)
	}
	if p := Fsck(s); len(p) != 1 || p[0].Path != CredentialsFile || !strings.Contains(p[0].Problem, "damaged") {
		t.Fatalf("fsck problems %+v", p)
	}
	if r, err := s.Fsck(context.Background()); err != nil || len(r.Problems) != 0 {
		t.Fatalf("the engine's fsck: %+v %v", r, err)
	}
	os.Remove(name)
	if p := Fsck(s); len(p) != 0 {
		t.Fatalf("fsck without credentials.json: %+v", p)
	}
}

// A FIFO where credentials.json should be is named, not waited on.
func TestCredentialsFIFO(t *testing.T) {
	s, err := engine.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	name := filepath.Join(s.Home(), CredentialsFile)
	if err := syscall.Mkfifo(name, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Credentials(s)
	if !errors.Is(err, vfs.ErrNotRegular) || !strings.Contains(err.Error(), CredentialsFile) {
		t.Fatalf("credentials: %v, want an error naming %s as not a regular file", err, CredentialsFile)
	}
	if p := Fsck(s); len(p) != 1 || !strings.Contains(p[0].Problem, "not a regular file") {
		t.Fatalf("fsck: %+v", p)
	}
}

func TestGatewayToken(t *testing.T) {
	d, err := vfs.OpenDisk(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	tok, made, err := gatewayToken(d, GatewayTokenFile)
	if err != nil || !made || len(tok) != 64 {
		t.Fatalf("first: %q %v %v", tok, made, err)
	}
	fi, err := d.Stat(GatewayTokenFile)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode: %v %v", fi, err)
	}
	again, made, err := gatewayToken(d, GatewayTokenFile)
	if err != nil || made || again != tok {
		t.Fatalf("second: %q %v %v", again, made, err)
	}
	if !tokenEqual(tok, again) || tokenEqual(tok, tok[:63]) || tokenEqual(tok, "") {
		t.Fatal("TokenEqual")
	}
	if hashToken(tok) == hashToken(tok[:63]) || len(hashToken(tok)) != 64 {
		t.Fatal("HashToken")
	}

	if err := d.Chmod(GatewayTokenFile, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := gatewayToken(d, GatewayTokenFile); !errors.Is(err, engine.ErrBadInput) {
		t.Fatalf("0644 token file: %v", err)
	}
	if err := vfs.WriteFileAtomic(d, "short", []byte("abc\n")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := gatewayToken(d, "short"); !errors.Is(err, engine.ErrBadInput) {
		t.Fatalf("short token: %v", err)
	}
}
