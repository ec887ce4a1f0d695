package engine

import (
	"context"
	"encoding/json"
	"fmt"
)

// RemoteWorkspace is the remote workspace a session's files are on (cairn --ssh):
// the conversation is this session's, the files, their snapshots and
// change records are on Host, in the host's state folder. Identity and
// Generation are what the host gave the workspace when the session bound
// it; every connect checks all four (package remotews). SSHCommand and
// CairnPath are the --ssh-command and --cairn-path the session was started
// with, so that a resume reaches the host the same way ("" the default).
type RemoteWorkspace struct {
	Host       string `json:"host"`
	Path       string `json:"path"`
	Identity   string `json:"identity"`
	Generation int64  `json:"generation"`
	SSHCommand string `json:"ssh_command,omitempty"`
	CairnPath  string `json:"cairn_path,omitempty"`
}

// String is host:path, as a listing shows it.
func (r *RemoteWorkspace) String() string { return r.Host + ":" + r.Path }

const metaRemote = "remote"

// remoteOf is the session's binding, nil for a local session.
func remoteOf(st *state) *RemoteWorkspace {
	raw, ok := st.Meta[metaRemote]
	if !ok {
		return nil
	}
	var r RemoteWorkspace
	if json.Unmarshal(raw, &r) != nil || r.Host == "" {
		return nil
	}
	return &r
}

// Remote is the remote workspace the session is bound to, nil when its
// files are on this machine.
func (s *Session) Remote() *RemoteWorkspace {
	s.mu.Lock()
	defer s.mu.Unlock()
	return remoteOf(s.st)
}

// SetRemote binds the session to a remote workspace, durably: a line of
// its journal, so a resume finds it. A session is bound once; binding it
// again to another workspace is refused (its records on the host would be
// left behind).
func (s *Session) SetRemote(ctx context.Context, r RemoteWorkspace) error {
	if r.Host == "" || r.Path == "" || r.Identity == "" {
		return fmt.Errorf("%w: a remote workspace needs a host, a path and an identity", ErrBadInput)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if cur := remoteOf(s.st); cur != nil {
		if *cur == r {
			return nil
		}
		return fmt.Errorf("%w: session %s is bound to %s already", ErrRefused, s.st.ID, cur)
	}
	m, err := json.Marshal(map[string]RemoteWorkspace{metaRemote: r})
	if err != nil {
		return err
	}
	now := mkTime(s.ws.s.Now())
	l := &itemLine{V: 1, Kind: kindMeta, Meta: m, At: &now}
	if err := s.writeLine(ctx, l); err != nil {
		return err
	}
	if err := s.st.Fold(l); err != nil {
		return err
	}
	return s.commitLocked(ctx)
}

// RemoteError refuses to open a session bound to a remote workspace for a
// caller that would run its files here. It is ErrRefused for errors.Is.
type RemoteError struct {
	Session string
	Remote  RemoteWorkspace
}

func (e *RemoteError) Error() string {
	return fmt.Sprintf("session %s works on the remote workspace %s; its files are not on this machine: resume it with cairn -r %s (experimental.remote_workcell)",
		e.Session, e.Remote.String(), e.Session)
}

// Is makes a RemoteError a refusal.
func (e *RemoteError) Is(target error) bool { return target == ErrRefused }
