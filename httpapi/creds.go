package httpapi

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"cairn/engine"
	"cairn/internal/usermsg"
	"cairn/internal/vfs"
)

// Names in the state folder and scopes; part of the format.
const (
	GatewayTokenFile = "gateway.token"
	CredentialsFile  = "credentials.json"
	credentialsLock  = "credentials.lock"

	// ScopeAttach lets a paired credential read and restore the snapshots of
	// the sessions on its allowlist.
	ScopeAttach = "attach"
)

// Scopes is every scope a paired credential can hold.
var Scopes = []string{ScopeAttach}

// ErrBadCredentials: credentials.json cannot be read as one; paired
// tokens cannot be checked until it is repaired.
var ErrBadCredentials = errors.New("httpapi: credentials.json is damaged")

// Credential is one paired credential as credentials.json keeps it.
type Credential struct {
	ID       string      `json:"id"`
	SHA256   string      `json:"sha256"` // hex SHA-256 of the token
	Scopes   []string    `json:"scopes"`
	Sessions []string    `json:"sessions"` // the session ids it may see
	Created  engine.Time `json:"created"`
}

// Has reports whether the credential holds scope.
func (c *Credential) Has(scope string) bool { return slices.Contains(c.Scopes, scope) }

// Allows reports whether session id is on the credential's allowlist.
func (c *Credential) Allows(id string) bool { return slices.Contains(c.Sessions, id) }

// Matches reports, in constant time, whether token is this credential's.
func (c *Credential) Matches(token string) bool {
	want, err := hex.DecodeString(c.SHA256)
	if err != nil || len(want) != sha256.Size {
		return false
	}
	got := sha256.Sum256([]byte(token))
	return subtle.ConstantTimeCompare(got[:], want) == 1
}

// credentialsFile is the content of credentials.json.
type credentialsFile struct {
	V           int          `json:"v"`
	Credentials []Credential `json:"credentials"`
}

// newToken returns a fresh token: 32 random bytes, hex.
func newToken() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("httpapi: make token: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// hashToken is the hex SHA-256 of a token, as credentials.json keeps it.
func hashToken(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:])
}

// tokenEqual compares two tokens in constant time (through their SHA-256,
// so the length of neither leaks).
func tokenEqual(a, b string) bool {
	ha, hb := sha256.Sum256([]byte(a)), sha256.Sum256([]byte(b))
	return subtle.ConstantTimeCompare(ha[:], hb[:]) == 1
}

// TokenAt reads the gateway token from the file at path, making it (0600,
// atomically) when the file is missing; made says it was. A token file
// others can read, or one that holds no token, is refused (engine.ErrBadInput).
func TokenAt(path string) (token string, made bool, err error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", false, err
	}
	d, err := vfs.OpenDisk(filepath.Dir(abs))
	if err != nil {
		return "", false, fmt.Errorf("httpapi: token file folder: %w", err)
	}
	defer d.Close()
	return gatewayToken(d, filepath.Base(abs))
}

// gatewayToken reads or makes the gateway token in file name of fsys.
func gatewayToken(fsys vfs.FS, name string) (token string, made bool, err error) {
	fi, err := fsys.Stat(name)
	switch {
	case err == nil:
		if fi.Mode().Perm()&0o077 != 0 {
			return "", false, fmt.Errorf("%w: token file %s has mode %04o; it must be 0600 (chmod 600 it)", engine.ErrBadInput, name, fi.Mode().Perm())
		}
		b, err := vfs.ReadFile(fsys, name)
		if err != nil {
			return "", false, fmt.Errorf("httpapi: read token file: %w", err)
		}
		t := strings.TrimSpace(string(b))
		if len(t) < 32 || strings.ContainsAny(t, " \t\r\n") {
			return "", false, fmt.Errorf("%w: token file %s holds no token (32 characters or more on one line)", engine.ErrBadInput, name)
		}
		return t, false, nil
	case !vfs.IsNotExist(err):
		return "", false, fmt.Errorf("httpapi: token file: %w", err)
	}
	t, err := newToken()
	if err != nil {
		return "", false, err
	}
	if err := vfs.WriteFileAtomic(fsys, name, []byte(t+"\n")); err != nil {
		return "", false, fmt.Errorf("httpapi: write token file: %w", err)
	}
	return t, true, nil
}

// readCredentials returns the paired credentials of fsys's credentials.json
// (none when it is missing). A file that cannot be read as one gives
// ErrBadCredentials, one written by a newer cairn engine.ErrFormat. shown is
// the name its errors give the file (the store's is its absolute path).
func readCredentials(fsys vfs.FS, shown string) ([]Credential, error) {
	b, err := vfs.ReadFile(fsys, CredentialsFile)
	if vfs.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("httpapi: read credentials: %w", err)
	}
	var f credentialsFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, badCredentials(shown, err.Error())
	}
	switch {
	case f.V > 1:
		return nil, fmt.Errorf("%w: %s: version %d; use a newer cairn", engine.ErrFormat, shown, f.V)
	case f.V != 1:
		return nil, badCredentials(shown, fmt.Sprintf("version %d, want 1", f.V))
	}
	for i, c := range f.Credentials {
		if h, err := hex.DecodeString(c.SHA256); err != nil || len(h) != sha256.Size {
			return nil, badCredentials(shown, fmt.Sprintf("credential %d (%q) has no token hash", i+1, c.ID))
		}
	}
	return f.Credentials, nil
}

// badCredentials is the error of a damaged credentials.json: it names the
// file and says how to repair it.
func badCredentials(shown, why string) error {
	return fmt.Errorf("%w: %s: %s; paired tokens cannot be checked until it is repaired: "+
		"put back a good copy, or move it aside (every paired token stops working) and pair again with cairn pair",
		ErrBadCredentials, shown, why)
}

// addCredential makes a paired credential with scopes and the session ids
// it may see, keeps its hash in credentials.json and returns its token,
// which is not kept anywhere. shown is as for readCredentials.
func addCredential(fsys vfs.FS, shown string, now time.Time, scopes, sessions []string) (string, Credential, error) {
	for _, s := range scopes {
		if !slices.Contains(Scopes, s) {
			return "", Credential{}, fmt.Errorf("%w: unknown scope %q (known: %s)", engine.ErrBadInput, s, strings.Join(Scopes, ", "))
		}
	}
	if len(sessions) == 0 {
		return "", Credential{}, fmt.Errorf("%w: a paired credential needs at least one session", engine.ErrBadInput)
	}
	for _, id := range sessions {
		if !engine.IsSessionID(id) {
			return "", Credential{}, fmt.Errorf("%w: %q is not a session id", engine.ErrBadInput, id)
		}
	}
	l, err := fsys.Lock(credentialsLock)
	if err != nil {
		return "", Credential{}, fmt.Errorf("httpapi: lock credentials: %w", err)
	}
	defer l.Release()
	list, err := readCredentials(fsys, shown)
	if err != nil {
		return "", Credential{}, err
	}
	token, err := newToken()
	if err != nil {
		return "", Credential{}, err
	}
	idTok, err := newToken()
	if err != nil {
		return "", Credential{}, err
	}
	c := Credential{
		ID:       "p-" + idTok[:12],
		SHA256:   hashToken(token),
		Scopes:   slices.Clone(scopes),
		Sessions: slices.Compact(slices.Sorted(slices.Values(sessions))),
		Created:  engine.Time{Time: now.UTC().Truncate(time.Millisecond)},
	}
	if c.Scopes == nil {
		c.Scopes = []string{}
	}
	b, err := json.MarshalIndent(credentialsFile{V: 1, Credentials: append(list, c)}, "", "  ")
	if err != nil {
		return "", Credential{}, err
	}
	if err := vfs.WriteFileAtomic(fsys, CredentialsFile, append(b, '\n')); err != nil {
		return "", Credential{}, fmt.Errorf("httpapi: write credentials: %w", err)
	}
	return token, c, nil
}

// Pair makes a paired credential in the store's state folder: scopes and
// the ids of the sessions it may see. It returns the token, which is kept
// nowhere (credentials.json keeps its SHA-256).
func Pair(ctx context.Context, s *engine.Store, scopes, sessions []string) (string, Credential, error) {
	if err := ctx.Err(); err != nil {
		return "", Credential{}, err
	}
	return addCredential(s.FS(), credentialsPath(s), s.Now(), scopes, sessions)
}

// Credentials returns the paired credentials of the store's state folder.
func Credentials(s *engine.Store) ([]Credential, error) {
	return readCredentials(s.FS(), credentialsPath(s))
}

func credentialsPath(s *engine.Store) string { return filepath.Join(s.Home(), CredentialsFile) }

// GatewayToken reads or makes the gateway token in the store's state
// folder (GatewayTokenFile); made says it was made now.
func GatewayToken(s *engine.Store) (token string, made bool, err error) {
	return gatewayToken(s.FS(), GatewayTokenFile)
}

// Fsck names a credentials.json of the store that cannot be read: paired
// tokens cannot be checked until it is repaired. `cairn storage fsck` adds
// it to the engine's report.
func Fsck(s *engine.Store) []engine.FsckProblem {
	if _, err := readCredentials(s.FS(), CredentialsFile); err != nil {
		return []engine.FsckProblem{{Path: CredentialsFile, Problem: usermsg.Error(err)}}
	}
	return nil
}
