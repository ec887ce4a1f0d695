package inbox

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"cairn/internal/vfs"
)

// Two tests run this test binary again as a session's process (TestMain
// picks the role by its environment): two peers that message each other,
// and a receiver that is SIGKILLed while it delivers.

var killRounds = flag.Int("kill-rounds", 6, "kill -9 rounds of TestKill9ReceiverDeliversOnce")

const roleEnv = "INBOX_TEST_ROLE"

func TestMain(m *testing.M) {
	switch os.Getenv(roleEnv) {
	case "peer":
		exitWith(peer())
	case "receiver":
		exitWith(receiver())
	}
	os.Exit(m.Run())
}

func exitWith(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

func inboxName(s string) string { return "sessions/" + s + ".inbox.jsonl" }
func lockName(s string) string  { return "sessions/" + s + ".lock" }
func convoName(s string) string { return s + ".items.jsonl" }

// own takes session s's lock as its owner would, waiting out a sender's
// momentary test of it.
func own(fsys vfs.FS, s string) (vfs.Lock, error) {
	for range 2000 {
		l, err := fsys.Lock(lockName(s))
		if !errors.Is(err, vfs.ErrLocked) {
			return l, err
		}
		time.Sleep(time.Millisecond)
	}
	return nil, fmt.Errorf("session %s stays locked", s)
}

// receive delivers session me's inbox as messages arrive (the file is
// watched, and looked at every few milliseconds as a backstop), calling
// got with the number delivered so far.
func receive(ctx context.Context, fsys vfs.FS, me string, got func(int)) error {
	b, err := Open(fsys, inboxName(me), Options{})
	if err != nil {
		return err
	}
	c, err := openConvo(fsys, convoName(me))
	if err != nil {
		return err
	}
	wake := make(chan struct{}, 1)
	go b.Watch(ctx, func() {
		select {
		case wake <- struct{}{}:
		default:
		}
	})
	total := len(c.held)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		n, err := b.Deliver(ctx, c)
		if err != nil {
			return err
		}
		total += n
		got(total)
		select {
		case <-ctx.Done():
			return nil
		case <-wake:
		case <-tick.C:
		}
	}
}

// peer owns session ME, says "ready", sends N messages to PEER on "go",
// says "sent" and, once it has received N from its peer, "received"; it
// lets its session go on "exit".
func peer() error {
	me, other := os.Getenv("INBOX_ME"), os.Getenv("INBOX_PEER")
	n, _ := strconv.Atoi(os.Getenv("INBOX_N"))
	fsys, err := vfs.OpenDisk(os.Getenv("INBOX_DIR"))
	if err != nil {
		return err
	}
	lock, err := own(fsys, me)
	if err != nil {
		return err
	}
	defer lock.Release()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var once sync.Once
	received := make(chan struct{})
	errc := make(chan error, 1)
	go func() {
		errc <- receive(ctx, fsys, me, func(total int) {
			if total >= n {
				once.Do(func() { close(received) })
			}
		})
	}()
	in := bufio.NewScanner(os.Stdin)
	fmt.Println("ready")
	if !in.Scan() || in.Text() != "go" {
		return errors.New("no go")
	}
	for i := range n {
		s, err := Send(fsys, inboxName(other), lockName(other), me, fmt.Sprintf("%s says %d", me, i), SendOptions{})
		if err != nil {
			return fmt.Errorf("%s to %s, message %d: %w", me, other, i, err)
		}
		if s.Queued {
			return fmt.Errorf("%s was not live", other)
		}
	}
	fmt.Println("sent")
	select {
	case <-received:
	case err := <-errc:
		return fmt.Errorf("receiving: %v", err)
	}
	fmt.Println("received")
	if !in.Scan() || in.Text() != "exit" {
		return errors.New("no exit")
	}
	return nil
}

// proc is a started peer or receiver.
type proc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string
	stderr strings.Builder
}

func startProc(t *testing.T, env ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(os.Args[0], "-test.run=^$"), lines: make(chan string, 16)}
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stderr = &p.stderr
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	return p
}

func (p *proc) expect(t *testing.T, want string) {
	t.Helper()
	select {
	case l, ok := <-p.lines:
		if ok && l == want {
			return
		}
		p.cmd.Process.Kill()
		p.cmd.Wait()
		t.Fatalf("wanted %q, got %q: %s", want, l, p.stderr.String())
	case <-time.After(time.Minute):
		p.cmd.Process.Kill()
		t.Fatalf("no %q in a minute: %s", want, p.stderr.String())
	}
}

// TestTwoProcessesMessageEachOther: two sessions, each open in a process
// of its own, send each other messages at the same time; each receives
// every message of the other's exactly once, in the order sent, and once
// both have let go a message to either is refused as not live.
func TestTwoProcessesMessageEachOther(t *testing.T) {
	dir := t.TempDir()
	must0(t, os.Mkdir(filepath.Join(dir, "sessions"), 0o700))
	const n = 40
	env := func(me, other string) []string {
		return []string{roleEnv + "=peer", "INBOX_DIR=" + dir, "INBOX_ME=" + me, "INBOX_PEER=" + other, "INBOX_N=" + strconv.Itoa(n)}
	}
	a, b := startProc(t, env("a", "b")...), startProc(t, env("b", "a")...)
	a.expect(t, "ready")
	b.expect(t, "ready")
	io.WriteString(a.stdin, "go\n")
	io.WriteString(b.stdin, "go\n")
	for _, p := range []*proc{a, b} {
		p.expect(t, "sent")
		p.expect(t, "received")
	}
	io.WriteString(a.stdin, "exit\n")
	io.WriteString(b.stdin, "exit\n")
	for _, p := range []*proc{a, b} {
		if err := p.cmd.Wait(); err != nil {
			t.Fatalf("%v: %s", err, p.stderr.String())
		}
	}
	fsys, err := vfs.OpenDisk(dir)
	must0(t, err)
	for me, other := range map[string]string{"a": "b", "b": "a"} {
		var want []string
		for i := range n {
			want = append(want, fmt.Sprintf("%s says %d", other, i))
		}
		got := texts(t, fsys, convoName(me))
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Fatalf("%s holds %d messages %v, want %d in order, once each", me, len(got), got, n)
		}
		if _, err := Send(fsys, inboxName(me), lockName(me), "", "anyone?", SendOptions{}); !errors.Is(err, ErrNotLive) {
			t.Fatalf("to %s after it closed: %v", me, err)
		}
	}
}

// receiver owns session a and delivers its inbox until it is killed.
func receiver() error {
	fsys, err := vfs.OpenDisk(os.Getenv("INBOX_DIR"))
	if err != nil {
		return err
	}
	lock, err := own(fsys, "a")
	if err != nil {
		return err
	}
	defer lock.Release()
	fmt.Println("ready")
	return receive(context.Background(), fsys, "a", func(int) {})
}

// TestKill9ReceiverDeliversOnce: messages keep arriving (queued while the
// receiver is down) while the receiving process is SIGKILLed at random
// moments and started again; at the end every message sent is in its
// conversation exactly once, in the order sent.
func TestKill9ReceiverDeliversOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("kill -9 rounds")
	}
	dir := t.TempDir()
	must0(t, os.Mkdir(filepath.Join(dir, "sessions"), 0o700))
	fsys, err := vfs.OpenDisk(dir)
	must0(t, err)
	var (
		mu   sync.Mutex
		sent []string
		stop = make(chan struct{})
		done = make(chan error, 1)
	)
	go func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				done <- nil
				return
			default:
			}
			text := fmt.Sprintf("message %d", i)
			if _, err := Send(fsys, inboxName("a"), lockName("a"), "", text, SendOptions{Queue: true}); err != nil {
				done <- err
				return
			}
			mu.Lock()
			sent = append(sent, text)
			mu.Unlock()
			time.Sleep(200 * time.Microsecond)
		}
	}()
	rnd := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	for round := 1; round <= *killRounds; round++ {
		p := startProc(t, roleEnv+"=receiver", "INBOX_DIR="+dir)
		p.expect(t, "ready")
		time.Sleep(time.Duration(10+rnd.IntN(80)) * time.Millisecond)
		p.cmd.Process.Signal(syscall.SIGKILL)
		p.cmd.Wait()
		if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
			t.Fatalf("round %d: the receiver ended by itself: %s", round, p.stderr.String())
		}
	}
	close(stop)
	must0(t, <-done)
	lock, err := own(fsys, "a")
	must0(t, err)
	defer lock.Release()
	b := must(Open(fsys, inboxName("a"), Options{}))(t)
	must(b.Deliver(context.Background(), mustConvo(t, fsys, convoName("a"))))(t)
	got := texts(t, fsys, convoName("a"))
	if strings.Join(got, "|") != strings.Join(sent, "|") {
		t.Fatalf("the conversation holds %d messages, %d were sent (once each, in order)\n%v\n%v", len(got), len(sent), got, sent)
	}
	if b.Skipped != 0 {
		t.Fatalf("%d lines skipped", b.Skipped)
	}
	t.Logf("%d messages over %d rounds", len(sent), *killRounds)
}
