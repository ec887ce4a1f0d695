// Package sshtest starts a real OpenSSH server on a loopback port for tests
// that cross an SSH connection, and hands back the client command line that
// reaches it.
//
// # The server
//
// Start runs the system sshd (Debian's openssh-server, /usr/sbin/sshd) in
// the foreground as the current user, on 127.0.0.1 and a free port, with a
// configuration of its own in a temporary folder: a throwaway ed25519 host
// key and user key (made with ssh-keygen), the user key the only
// authorized one, StrictModes off (the test's temporary folders are not
// the user's home), no PAM, no passwords. The server ends when the test
// does. A test calls Available first (or Start's skip does it): where sshd
// or ssh-keygen is not installed, the test is skipped, so the default
// `go test ./...` passes on a machine without them, and .ci/run installs
// openssh-server so that in CI they run.
//
// Run as root, sshd needs its privilege separation folder, /run/sshd;
// Start makes it (0755) when it is missing, as the package's service
// would at boot.
//
// # The client
//
// Server.Command is the ssh command line that reaches the server with
// nothing of the user's own setup: -F /dev/null (no ~/.ssh/config), a
// known-hosts file holding only the throwaway host key, the user key
// alone (IdentitiesOnly), BatchMode (never a prompt) and the port.
// Server.Target is the user@host to give it.
package sshtest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// SSHD is where Debian's openssh-server puts the server. sshd must be
// started by its absolute path (it re-executes itself).
const SSHD = "/usr/sbin/sshd"

// Available says whether a server can be started here: sshd, ssh and
// ssh-keygen installed. It returns the reason when not.
func Available() (bool, string) {
	if _, err := os.Stat(SSHD); err != nil {
		return false, SSHD + " is not installed (apt-get install openssh-server)"
	}
	for _, p := range []string{"ssh", "ssh-keygen"} {
		if _, err := exec.LookPath(p); err != nil {
			return false, p + " is not installed (apt-get install openssh-client)"
		}
	}
	return true, ""
}

// Server is a running sshd.
type Server struct {
	Dir     string // the server's folder: keys, config, known hosts
	Port    int
	User    string
	UserKey string // the client's private key
	Known   string // the known-hosts file naming the server's host key

	cmd  *exec.Cmd
	done chan struct{}
	mu   sync.Mutex
	log  bytes.Buffer
}

// Options change how Start configures the server.
type Options struct {
	// SetEnv are NAME=VALUE pairs every session on the server starts with
	// (sshd_config SetEnv).
	SetEnv []string
}

// Start starts a server for t, or skips t when sshd is not installed. The
// server is stopped when t ends.
func Start(t testing.TB, opts ...Options) *Server {
	t.Helper()
	if ok, why := Available(); !ok {
		t.Skip(why)
	}
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	u, err := user.Current()
	if err != nil {
		t.Fatalf("sshtest: current user: %v", err)
	}
	if os.Geteuid() == 0 {
		if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
			t.Fatalf("sshtest: sshd's privilege separation folder: %v", err)
		}
	}
	dir := t.TempDir()
	for _, k := range []string{"host_key", "user_key"} {
		out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "sshtest", "-f", filepath.Join(dir, k)).CombinedOutput()
		if err != nil {
			t.Fatalf("sshtest: ssh-keygen: %v: %s", err, out)
		}
	}
	userPub, err := os.ReadFile(filepath.Join(dir, "user_key.pub"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "authorized_keys"), userPub, 0o600); err != nil {
		t.Fatal(err)
	}
	hostPub, err := os.ReadFile(filepath.Join(dir, "host_key.pub"))
	if err != nil {
		t.Fatal(err)
	}
	var s *Server
	// The port is picked free and then handed to sshd, which may lose it
	// to another process in between: try a few.
	for attempt := 0; attempt < 5; attempt++ {
		port, err := freePort()
		if err != nil {
			t.Fatalf("sshtest: a free port: %v", err)
		}
		s, err = start(dir, port, u.Username, o)
		if err == nil {
			break
		}
		if attempt == 4 {
			t.Fatalf("sshtest: %v", err)
		}
	}
	t.Cleanup(s.stop)
	s.Known = filepath.Join(dir, "known_hosts")
	line := fmt.Sprintf("[127.0.0.1]:%d %s", s.Port, hostPub)
	if err := os.WriteFile(s.Known, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	return s
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func start(dir string, port int, username string, o Options) (*Server, error) {
	conf := []string{
		fmt.Sprintf("Port %d", port),
		"ListenAddress 127.0.0.1",
		"HostKey " + filepath.Join(dir, "host_key"),
		"PidFile none",
		"AuthorizedKeysFile " + filepath.Join(dir, "authorized_keys"),
		"StrictModes no",
		"UsePAM no",
		"PasswordAuthentication no",
		"KbdInteractiveAuthentication no",
		"PermitRootLogin prohibit-password",
		"AllowUsers " + username,
		"LogLevel INFO",
	}
	if len(o.SetEnv) > 0 {
		conf = append(conf, "SetEnv "+strings.Join(o.SetEnv, " "))
	}
	cfg := filepath.Join(dir, "sshd_config")
	if err := os.WriteFile(cfg, []byte(strings.Join(conf, "\n")+"\n"), 0o600); err != nil {
		return nil, err
	}
	s := &Server{Dir: dir, Port: port, User: username, UserKey: filepath.Join(dir, "user_key"),
		done: make(chan struct{})}
	s.cmd = exec.Command(SSHD, "-D", "-e", "-f", cfg)
	stderr, err := s.cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	// sshd says "Server listening on 127.0.0.1 port N." once it accepts.
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		said := false
		for sc.Scan() {
			line := sc.Text()
			s.mu.Lock()
			s.log.WriteString(line + "\n")
			s.mu.Unlock()
			if !said && strings.Contains(line, "Server listening on") {
				said = true
				ready <- true
			}
		}
		if !said {
			ready <- false
		}
		_ = s.cmd.Wait()
		close(s.done)
	}()
	select {
	case ok := <-ready:
		if ok {
			return s, nil
		}
		<-s.done
		return nil, fmt.Errorf("sshd did not start: %s", strings.TrimSpace(s.Log()))
	case <-time.After(30 * time.Second):
		s.stop()
		return nil, errors.New("sshd did not say it listens within 30s")
	}
}

func (s *Server) stop() {
	if s.cmd.Process != nil {
		_ = s.cmd.Process.Kill()
	}
	<-s.done
}

// Target is the user@host the client names.
func (s *Server) Target() string { return s.User + "@127.0.0.1" }

// Command is the ssh command line that reaches the server, without the
// target and the remote command.
func (s *Server) Command() []string {
	return []string{"ssh", "-F", "/dev/null",
		"-o", "UserKnownHostsFile=" + s.Known,
		"-o", "GlobalKnownHostsFile=/dev/null",
		"-o", "StrictHostKeyChecking=yes",
		"-o", "BatchMode=yes",
		"-o", "IdentitiesOnly=yes",
		"-o", "LogLevel=ERROR",
		"-i", s.UserKey,
		"-p", fmt.Sprint(s.Port)}
}

// CommandLine is Command as one shell line (for CAIRN_SSH and
// --ssh-command).
func (s *Server) CommandLine() string {
	q := make([]string, 0, len(s.Command()))
	for _, a := range s.Command() {
		q = append(q, Quote(a))
	}
	return strings.Join(q, " ")
}

// Run runs a remote command on the server and returns its output and
// ssh's error (an *exec.ExitError carries the remote exit status, or 255
// for ssh's own failure).
func (s *Server) Run(ctx context.Context, remote string) ([]byte, error) {
	args := append(s.Command()[1:], s.Target(), remote)
	return exec.CommandContext(ctx, s.Command()[0], args...).CombinedOutput()
}

// Log is what sshd has said so far.
func (s *Server) Log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.String()
}

// Quote quotes a word for a POSIX shell.
func Quote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:@,+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
