// Package s3test starts a real S3-compatible server (SeaweedFS's weed
// mini) on loopback for tests: every port it opens is bound to 127.0.0.1
// and chosen free, so test binaries running at once do not collide, and
// its telemetry is off. The binary comes from CAIRN_TEST_S3_BIN, else from
// the cache .ci/s3-server fills (${XDG_CACHE_HOME:-~/.cache}/cairn-ci).
// Without one the S3 tests are skipped; .ci/run builds it and sets
// CAIRN_TEST_S3_BIN, so in CI a server that is missing or does not start
// fails them instead.
package s3test

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Credentials the server is started with and the tests use (the AWS
// SDK's usual environment variables).
const (
	AccessKey = "cairntest"
	SecretKey = "cairntestsecret"
)

// Binary returns the path of the weed binary, or "".
func Binary() string {
	if b := os.Getenv("CAIRN_TEST_S3_BIN"); b != "" {
		return b
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		cache = filepath.Join(home, ".cache")
	}
	m, _ := filepath.Glob(filepath.Join(cache, "cairn-ci", "weed-*"))
	sort.Strings(m)
	for i := len(m) - 1; i >= 0; i-- {
		if fi, err := os.Stat(m[i]); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 && filepath.Ext(m[i]) != ".tmp" {
			return m[i]
		}
	}
	return ""
}

// Server is a running weed mini.
type Server struct {
	Endpoint string // http://127.0.0.1:PORT
	cmd      *exec.Cmd
	dir      string
	exited   chan struct{} // closed when the process has ended
}

// alive reports whether the server's process runs and its S3 port
// answers.
func (s *Server) alive() bool {
	select {
	case <-s.exited:
		return false
	default:
	}
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Get(s.Endpoint + "/")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return true
}

// logTail is the end of the server's log.
func (s *Server) logTail() string {
	b, _ := os.ReadFile(filepath.Join(s.dir, "weed.log"))
	return tail(b)
}

var (
	mu     sync.Mutex
	shared *Server
)

// Shared returns the server of this test binary, started by the first
// test that asks (with the credentials set in the environment), or skips
// the test when there is no binary.
func Shared(t testing.TB) *Server {
	t.Helper()
	bin := Binary()
	if bin == "" {
		t.Skip("no S3 server binary: run .ci/s3-server, or set CAIRN_TEST_S3_BIN")
	}
	mu.Lock()
	defer mu.Unlock()
	if shared != nil && !shared.alive() {
		// The server is not cairn's code: a crash of it is said and it
		// is started again, so the tests after it still test cairn.
		t.Logf("the shared S3 server stopped; starting another. Its log ends:\n%s", shared.logTail())
		shared.Stop()
		shared = nil
	}
	if shared == nil {
		s, err := Start(bin)
		if err != nil {
			t.Fatalf("the S3 server did not start: %v", err)
		}
		shared = s
	}
	t.Setenv("AWS_ACCESS_KEY_ID", AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", SecretKey)
	return shared
}

// Own starts a server for one test alone, stopped when the test ends, or
// skips the test when there is no binary (for a package whose TestMain
// cannot stop a shared one).
func Own(t testing.TB) *Server {
	t.Helper()
	bin := Binary()
	if bin == "" {
		t.Skip("no S3 server binary: run .ci/s3-server, or set CAIRN_TEST_S3_BIN")
	}
	s, err := Start(bin)
	if err != nil {
		t.Fatalf("the S3 server did not start: %v", err)
	}
	t.Cleanup(s.Stop)
	t.Setenv("AWS_ACCESS_KEY_ID", AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", SecretKey)
	return s
}

// Stop ends the shared server, if one was started (TestMain calls it).
func Stop() {
	mu.Lock()
	defer mu.Unlock()
	if shared != nil {
		shared.Stop()
	}
}

// URL is a cairn remote URL for a new bucket of its own on the server.
func (s *Server) URL() string {
	var b [6]byte
	rand.Read(b[:])
	return "s3://cairn-" + hex.EncodeToString(b[:]) + "?endpoint=" + s.Endpoint
}

// freePorts picks n ports that are free now, below the range the kernel
// hands out for outgoing connections and listen(":0") (on Linux
// net.ipv4.ip_local_port_range, 32768 and up by default). A port from
// that range could be taken between this check and weed binding it: by a
// connection's local end, or by another test binary's server asking for
// ":0". A server that failed to bind then looks ready when another
// process answers on its port, and goes away when that process does.
func freePorts(n int) ([]int, error) {
	low := ephemeralLow()
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var out []int
	var b [2]byte
	for tries := 0; len(out) < n && tries < 1000; tries++ {
		rand.Read(b[:])
		port := 10000 + (int(b[0])<<8|int(b[1]))%(low-10000)
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			continue
		}
		ls = append(ls, l)
		out = append(out, port)
	}
	if len(out) < n {
		return nil, fmt.Errorf("found %d free ports below %d, need %d", len(out), low, n)
	}
	return out, nil
}

// ephemeralLow is the first port of the kernel's ephemeral range, or
// 32768 where it cannot be read.
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err == nil {
		var lo, hi int
		if _, err := fmt.Sscan(string(b), &lo, &hi); err == nil && lo > 12000 {
			return lo
		}
	}
	return 32768
}

// Start runs bin's weed mini in a temporary folder and waits until its S3
// port answers.
func Start(bin string) (*Server, error) {
	dir, err := os.MkdirTemp("", "cairn-s3-")
	if err != nil {
		return nil, err
	}
	p, err := freePorts(10)
	if err != nil {
		return nil, err
	}
	args := []string{"mini", "-dir=" + dir, "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
		"-master.port=" + strconv.Itoa(p[0]), "-master.port.grpc=" + strconv.Itoa(p[1]),
		"-filer.port=" + strconv.Itoa(p[2]), "-filer.port.grpc=" + strconv.Itoa(p[3]),
		"-volume.port=" + strconv.Itoa(p[4]), "-volume.port.grpc=" + strconv.Itoa(p[5]),
		"-s3.port=" + strconv.Itoa(p[6]), "-s3.port.grpc=" + strconv.Itoa(p[7]),
		"-admin.port=" + strconv.Itoa(p[8]), "-admin.port.grpc=" + strconv.Itoa(p[9]), "-admin.ui=false",
		"-webdav=false", "-s3.port.iceberg=0", "-s3.port.lance=0",
		"-master.telemetry=false",
		"-filer.localSocket=" + filepath.Join(dir, "filer.sock"), "-s3.localSocket=" + filepath.Join(dir, "s3.sock"),
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "AWS_ACCESS_KEY_ID="+AccessKey, "AWS_SECRET_ACCESS_KEY="+SecretKey)
	log, _ := os.Create(filepath.Join(dir, "weed.log"))
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = procAttr()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	exited := make(chan error, 1)
	s := &Server{Endpoint: "http://127.0.0.1:" + strconv.Itoa(p[6]), cmd: cmd, dir: dir, exited: make(chan struct{})}
	go func() { err := cmd.Wait(); exited <- err; close(s.exited) }()
	client := &http.Client{Timeout: time.Second}
	for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline); {
		select {
		case err := <-exited:
			b, _ := os.ReadFile(filepath.Join(dir, "weed.log"))
			return nil, fmt.Errorf("weed mini exited (%v): %s", err, tail(b))
		case <-time.After(300 * time.Millisecond):
		}
		if resp, err := client.Get(s.Endpoint + "/"); err == nil {
			resp.Body.Close()
			if resp.StatusCode < 500 {
				return s, nil
			}
		}
	}
	s.Stop()
	return nil, fmt.Errorf("weed mini did not answer on %s", s.Endpoint)
}

func tail(b []byte) string {
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}

// Stop ends the server and removes its folder.
func (s *Server) Stop() {
	if s.cmd.Process != nil {
		s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.exited:
		case <-time.After(5 * time.Second):
			s.cmd.Process.Kill()
			<-s.exited
		}
	}
	os.RemoveAll(s.dir)
}
