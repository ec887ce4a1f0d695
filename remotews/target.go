package remotews

import (
	"fmt"
	"path"
	"strings"

	"cairn/engine"
)

// Target is where a remote workspace is: [user@]host:/abs/path.
type Target struct {
	Host string // as ssh takes it: [user@]host, or a ~/.ssh/config alias
	Path string // absolute and clean, on the host
}

func (t Target) String() string { return t.Host + ":" + t.Path }

// TargetError is a --ssh target that cannot name a workspace. It is
// engine.ErrBadInput for errors.Is.
type TargetError struct {
	Target string
	Why    string
}

func (e *TargetError) Error() string { return e.Why }

// Is makes a TargetError bad input.
func (e *TargetError) Is(target error) bool { return target == engine.ErrBadInput }

func badTarget(s, format string, a ...any) error {
	return &TargetError{Target: s, Why: fmt.Sprintf(format, a...)}
}

// ParseTarget reads [user@]host:/abs/path. The path must be absolute (a
// relative one would depend on the remote login's folder) and the host
// must not start with "-" (ssh would read it as an option).
func ParseTarget(s string) (Target, error) {
	i := strings.Index(s, ":")
	if i < 0 {
		return Target{}, badTarget(s, "%q is not [user@]host:/absolute/path", s)
	}
	t := Target{Host: s[:i], Path: s[i+1:]}
	switch {
	case t.Host == "" || strings.HasSuffix(t.Host, "@"):
		return Target{}, badTarget(s, "%q names no host", s)
	case strings.HasPrefix(t.Host, "-"):
		return Target{}, badTarget(s, "host %q starts with '-'", t.Host)
	case strings.ContainsAny(t.Host, " \t\n'\"\\;&|<>$`"):
		return Target{}, badTarget(s, "host %q holds a space or a shell character", t.Host)
	case !path.IsAbs(t.Path):
		return Target{}, badTarget(s, "%q is not an absolute path on %s (write %s:/the/full/path)", t.Path, t.Host, t.Host)
	case strings.ContainsRune(t.Path, 0) || strings.ContainsAny(t.Path, "\n\r"):
		return Target{}, badTarget(s, "the path %q holds a newline or a NUL", t.Path)
	}
	t.Path = path.Clean(t.Path)
	return t, nil
}

// HostCommand is the command line the host's shell runs: cairnPath as it
// is written (it may hold words of its own), "host", and path quoted.
func HostCommand(cairnPath, p string, extra ...string) string {
	if cairnPath == "" {
		cairnPath = "cairn"
	}
	words := []string{cairnPath, "host"}
	for _, e := range extra {
		words = append(words, shellQuote(e))
	}
	return strings.Join(append(words, "--", shellQuote(p)), " ")
}

// shellQuote quotes a word for a POSIX shell.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:@,+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// SSHArgv is the command the client runs to reach t: ssh, or the command
// line sshCommand run by sh as git runs GIT_SSH_COMMAND (so its quoting
// and variables work), then "--", the host and the host's command.
func SSHArgv(sshCommand string, t Target, hostCommand string) []string {
	if strings.TrimSpace(sshCommand) == "" {
		return []string{"ssh", "--", t.Host, hostCommand}
	}
	return []string{"sh", "-c", sshCommand + ` "$@"`, "cairn-ssh", "--", t.Host, hostCommand}
}
