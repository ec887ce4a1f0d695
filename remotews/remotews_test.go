package remotews

import (
	"context"
	"errors"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"cairn/engine"
)

func TestParseTarget(t *testing.T) {
	good := map[string]Target{
		"dev:/srv/proj":           {"dev", "/srv/proj"},
		"me@dev.box:/srv/p/../q/": {"me@dev.box", "/srv/q"},
		"alias:/":                 {"alias", "/"},
		"h:/a b/c:d":              {"h", "/a b/c:d"},
	}
	for in, want := range good {
		got, err := ParseTarget(in)
		if err != nil || got != want {
			t.Errorf("ParseTarget(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, in := range []string{"dev", "dev:", "dev:srv/proj", "dev:~/proj", ":/x", "me@:/x", "-oProxyCommand=x:/p", "a b:/p", "h;rm:/p", "h:/a\nb"} {
		if _, err := ParseTarget(in); !errors.Is(err, engine.ErrBadInput) {
			t.Errorf("ParseTarget(%q): %v, want bad input", in, err)
		}
	}
}

// The host's command line reads back, through a shell, as the words
// cairn host must get, whatever the path holds.
func TestHostCommand(t *testing.T) {
	for _, p := range []string{"/srv/proj", "/a b/it's", "/x/$HOME/`id`", "/-n"} {
		line := HostCommand("printf '%s\\n'", p)
		out, err := exec.Command("sh", "-c", line).Output()
		if err != nil {
			t.Fatal(err)
		}
		if got, want := string(out), "host\n--\n"+p+"\n"; got != want {
			t.Errorf("%q read back as %q, want %q", line, got, want)
		}
	}
	if got := HostCommand("", "/p"); got != "cairn host -- /p" {
		t.Errorf("default cairn path: %q", got)
	}
	if got := HostCommand("env CAIRN_HOME=/st /opt/cairn", "/p", "--new-generation"); got != "env CAIRN_HOME=/st /opt/cairn host --new-generation -- /p" {
		t.Errorf("cairn path with words: %q", got)
	}
}

// --ssh-command is a shell command line: its quoting holds, and the
// target and the host command come after it as words of their own.
func TestSSHArgv(t *testing.T) {
	tg := Target{Host: "me@h", Path: "/p"}
	if got := SSHArgv("", tg, "cairn host -- /p"); !reflect.DeepEqual(got, []string{"ssh", "--", "me@h", "cairn host -- /p"}) {
		t.Fatalf("plain ssh: %q", got)
	}
	argv := SSHArgv(`printf '[%s]' -o 'Opt=a b'`, tg, "cairn host -- /p")
	out, err := exec.Command(argv[0], argv[1:]...).Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := string(out); got != "[-o][Opt=a b][--][me@h][cairn host -- /p]" {
		t.Fatalf("ssh command line ran as %s", got)
	}
}

func TestLower(t *testing.T) {
	host := LimitsOf(engine.DefaultConfig())
	asked := host
	got, low := Lower(asked, host)
	if got != host || len(low) != 0 {
		t.Fatalf("equal limits: %+v %v", got, low)
	}
	asked.MaxFileBytes = host.MaxFileBytes * 2
	asked.MaxPerSession = 5
	host.RecordingEnabled = false
	got, low = Lower(asked, host)
	if got.MaxFileBytes != host.MaxFileBytes || got.MaxPerSession != 5 || got.RecordingEnabled {
		t.Fatalf("lowered: %+v", got)
	}
	var names []string
	for _, l := range low {
		names = append(names, l.String())
	}
	want := []string{"snapshots.max_file_bytes 4194304 lowered to 2097152", "storage.snapshots.enabled true lowered to false"}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("said %q, want %q", names, want)
	}
	// A client that turned snapshots off keeps them off; that is not a
	// lowering.
	asked = LimitsOf(engine.DefaultConfig())
	asked.SnapshotsEnabled = false
	got, low = Lower(asked, LimitsOf(engine.DefaultConfig()))
	if got.SnapshotsEnabled || len(low) != 0 {
		t.Fatalf("client off: %+v %v", got, low)
	}
}

// Each way the host's side can fail to start is told apart, from ssh's
// exit status and what it printed, with the host named.
func TestDialFailures(t *testing.T) {
	tg := Target{Host: "devbox", Path: "/srv/p"}
	cases := []struct {
		name, ssh string
		kind      error
		says      string
	}{
		{"no cairn", `sh -c 'echo "sh: 1: cairn: not found" >&2; exit 127'`, ErrNoCairn, "devbox has no cairn to run (ssh exit 127: sh: 1: cairn: not found): install cairn there, or name it with --cairn-path"},
		{"refused key", `sh -c 'echo "me@devbox: Permission denied (publickey)." >&2; exit 255'`, ErrSSH, "ssh to devbox failed (exit 255: me@devbox: Permission denied (publickey).)"},
		{"older cairn", `sh -c 'echo "cairn: error: unexpected argument host" >&2; exit 2'`, ErrVersion, "the cairn on devbox has no `cairn host` (an older cairn: cairn: error: unexpected argument host)"},
		{"banner", `sh -c 'echo "Welcome to devbox"; cat >/dev/null'`, ErrStart, `devbox printed "Welcome to devbox" where cairn host should have started`},
		{"silent end", `sh -c 'exit 0'`, ErrStart, "cairn host on devbox ended before it answered (exit 0)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Dial(context.Background(), tg, Options{SSHCommand: c.ssh})
			var re *Error
			if !errors.Is(err, c.kind) || !errors.As(err, &re) || re.Host != "devbox" || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("got %v\nwant %v saying %q", err, c.kind, c.says)
			}
		})
	}
	// An ssh command that cannot start at all.
	_, err := Dial(context.Background(), tg, Options{SSHCommand: "/no/such/ssh"})
	if !errors.Is(err, ErrNoCairn) && !errors.Is(err, ErrSSH) && !errors.Is(err, ErrStart) {
		t.Fatalf("missing ssh: %v", err)
	}
}

// An error answer comes back as an *Error matching the engine's
// sentinels, so the cairn command exits as it would locally.
func TestErrorsRoundTrip(t *testing.T) {
	for _, c := range []struct {
		err  error
		want error
	}{
		{engine.ErrBusy, engine.ErrBusy},
		{engine.ErrRefused, engine.ErrRefused},
		{engine.ErrBadInput, engine.ErrBadInput},
		{engine.ErrNotFound, engine.ErrNotFound},
	} {
		back := fromWire("h", "undo", HostError(c.err))
		if !errors.Is(back, c.want) || back.Error() != c.err.Error() {
			t.Errorf("%v came back as %v", c.err, back)
		}
		// Only a refusal is an engine.Refusal (the command's exit 3).
		var r engine.Refusal
		var re *Error
		if errors.As(back, &r) != (c.want == engine.ErrRefused) || !errors.As(back, &re) {
			t.Errorf("%v came back as a refusal: %t, as an *Error: %t", c.err, errors.As(back, &r), errors.As(back, &re))
		}
	}
	// A refusal's reason reads as a local one's: the words "engine:
	// refused" are the exit code's, not the reason's.
	var r engine.Refusal
	if back := fromWire("h", "undo", HostError(testRefusal{})); !errors.As(back, &r) || r.Why() != "nothing to undo" || back.Error() != (testRefusal{}).Error() {
		t.Errorf("a refusal came back as %v (why %q)", back, r.Why())
	}
	back := fromWire("h", "revert.preview", &struct{ error }{errors.New("x")})
	if back.Error() != "x" {
		t.Errorf("a non-wire error: %v", back)
	}
}

// testRefusal is a refusal as the engine makes them (errs.Refusedf).
type testRefusal struct{}

func (testRefusal) Error() string   { return engine.ErrRefused.Error() + ": nothing to undo" }
func (testRefusal) Why() string     { return "nothing to undo" }
func (testRefusal) Unwrap() []error { return []error{engine.ErrRefused} }
