package remote

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"cairn/internal/lazyre"
	"cairn/internal/vfs"
)

// The remotes of a state folder, in remotes.json (written whole):
//
//	{"v":1,"remotes":[{"name":NAME,"url":URL}]}
//
// The first is the default: sync without a name uses it, and with any
// remote set every open of a session checks its lease there. No
// credential is ever written: the URL carries none (CheckURL).
//
// The machine's name on remotes, in machine.json, made once:
//
//	{"v":1,"machine":"<host>-<8 hex>"}
const (
	configName  = "remotes.json"
	machineName = "machine.json"
)

// Remote is one configured remote.
type Remote struct {
	Name string `json:"name"`
	URL  string `json:"url"`
}

type configFile struct {
	V       int      `json:"v"`
	Remotes []Remote `json:"remotes"`
}

var (
	remoteNameRE  = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)
	hostCleanerRE = lazyre.New(`[^A-Za-z0-9._-]+`)
)

// Remotes reads the configured remotes, the default first.
func Remotes(fsys vfs.FS) ([]Remote, error) {
	b, err := vfs.ReadFile(fsys, configName)
	if vfs.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("remote: %s: %w", configName, err)
	}
	var c configFile
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("remote: %s cannot be read: %w", configName, err)
	}
	return c.Remotes, nil
}

func writeRemotes(fsys vfs.FS, rs []Remote) error {
	b, _ := json.MarshalIndent(configFile{V: 1, Remotes: rs}, "", "  ")
	return vfs.WriteFileAtomic(fsys, configName, append(b, '\n'))
}

// Find returns the remote of that name, or the default for "".
func Find(fsys vfs.FS, name string) (Remote, error) {
	rs, err := Remotes(fsys)
	if err != nil {
		return Remote{}, err
	}
	if name == "" {
		if len(rs) == 0 {
			return Remote{}, fmt.Errorf("remote: %w: add one with cairn remote add NAME URL", ErrNoneSet)
		}
		return rs[0], nil
	}
	for _, r := range rs {
		if r.Name == name {
			return r, nil
		}
	}
	return Remote{}, fmt.Errorf("remote: %w: %q", ErrNoRemote, name)
}

// Add records a remote. The name must be new and the URL one cairn opens.
func Add(fsys vfs.FS, name, url string) error {
	if !remoteNameRE.MatchString(name) {
		return fmt.Errorf("remote: %w %q: letters, digits, dot, dash and underscore, starting with a letter or digit", ErrBadName, name)
	}
	if _, err := CheckURL(url); err != nil {
		return err
	}
	rs, err := Remotes(fsys)
	if err != nil {
		return err
	}
	for _, r := range rs {
		if r.Name == name {
			return fmt.Errorf("remote: %w: %q (%s)", ErrNameTaken, name, r.URL)
		}
	}
	return writeRemotes(fsys, append(rs, Remote{Name: name, URL: url}))
}

// RemoveRemote forgets a remote here, and what this machine knew of it.
// Nothing on the remote is touched.
func RemoveRemote(fsys vfs.FS, name string) error {
	rs, err := Remotes(fsys)
	if err != nil {
		return err
	}
	out := rs[:0]
	found := false
	for _, r := range rs {
		if r.Name == name {
			found = true
			continue
		}
		out = append(out, r)
	}
	if !found {
		return fmt.Errorf("remote: %w: %q", ErrNoRemote, name)
	}
	if err := writeRemotes(fsys, out); err != nil {
		return err
	}
	for _, f := range []string{stateName(name), pushedName(name)} {
		fsys.Remove(f)
	}
	return nil
}

// Machine returns this state folder's machine name, making it once from
// the host name and a random suffix (two state folders on one host are
// two machines).
func Machine(fsys vfs.FS) (string, error) {
	read := func() (string, bool) {
		b, err := vfs.ReadFile(fsys, machineName)
		if err != nil {
			return "", false
		}
		var m struct {
			Machine string `json:"machine"`
		}
		if json.Unmarshal(b, &m) != nil || !validName(m.Machine) {
			return "", false
		}
		return m.Machine, true
	}
	if m, ok := read(); ok {
		return m, nil
	}
	host, _ := os.Hostname()
	host = strings.Trim(hostCleanerRE.ReplaceAllString(host, "-"), ".-")
	if len(host) > 40 {
		host = host[:40]
	}
	if host == "" {
		host = "machine"
	}
	var r [4]byte
	rand.Read(r[:])
	b, _ := json.Marshal(map[string]any{"v": 1, "machine": host + "-" + hex.EncodeToString(r[:])})
	f, err := fsys.OpenFile(machineName, os.O_CREATE|os.O_EXCL|os.O_WRONLY, vfs.FilePerm)
	if err == nil {
		_, err = f.Write(append(b, '\n'))
		if serr := f.Sync(); err == nil {
			err = serr
		}
		f.Close()
		if err != nil {
			fsys.Remove(machineName)
			return "", fmt.Errorf("remote: %s: %w", machineName, err)
		}
		fsys.SyncDir(".")
	} else if !errors.Is(err, os.ErrExist) {
		return "", fmt.Errorf("remote: %s: %w", machineName, err)
	}
	if m, ok := read(); ok {
		return m, nil
	}
	return "", fmt.Errorf("remote: %s cannot be read", machineName)
}
