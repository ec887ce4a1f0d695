package sshtest

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// The server runs a remote command as the current user and passes its
// exit status back; a key it does not know is refused with ssh's 255.
func TestServer(t *testing.T) {
	s := Start(t, Options{SetEnv: []string{"SSHTEST_MARK=here"}})
	ctx := context.Background()
	out, err := s.Run(ctx, `echo "$SSHTEST_MARK $USER"; exit 3`)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("exit status: %v (%s)", err, out)
	}
	if got := strings.TrimSpace(string(out)); got != "here "+s.User && got != "here" {
		t.Fatalf("output %q, want the SetEnv value and the user", got)
	}
	out, err = s.Run(ctx, "no-such-command-here")
	if !errors.As(err, &ee) || ee.ExitCode() != 127 {
		t.Fatalf("a missing command: %v (%s), want 127", err, out)
	}

	// Another key: ssh itself fails (255) and says why.
	args := s.Command()
	for i, a := range args {
		if a == s.UserKey {
			args[i] = s.Dir + "/host_key"
		}
	}
	args = append(args, s.Target(), "true")
	out, err = exec.Command(args[0], args[1:]...).CombinedOutput()
	if !errors.As(err, &ee) || ee.ExitCode() != 255 || !strings.Contains(string(out), "Permission denied") {
		t.Fatalf("a refused key: %v (%s), want 255 and Permission denied", err, out)
	}
}

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"plain/path-1.txt": "plain/path-1.txt",
		"":                 "''",
		"a b":              "'a b'",
		"it's":             `'it'\''s'`,
		"$HOME":            "'$HOME'",
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %q, want %q", in, got, want)
		}
		if out, err := exec.Command("sh", "-c", "printf %s "+Quote(in)).Output(); err != nil || string(out) != in {
			t.Errorf("sh read %q back as %q (%v)", in, out, err)
		}
	}
}
