package s3test

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	code := m.Run()
	Stop()
	os.Exit(code)
}

// Ports come from below the kernel's ephemeral range, so nothing else on
// the machine is handed one between the check and the server's bind.
func TestFreePortsAvoidTheEphemeralRange(t *testing.T) {
	low := ephemeralLow()
	ps, err := freePorts(10)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, p := range ps {
		if p < 10000 || p >= low || seen[p] {
			t.Fatalf("port %d of %v: want distinct ports in [10000, %d)", p, ps, low)
		}
		seen[p] = true
	}
}

// A shared server that went away is started again by the next test that
// asks, and the new one answers.
func TestSharedRestartsAServerThatStopped(t *testing.T) {
	first := Shared(t)
	first.cmd.Process.Kill()
	<-first.exited
	second := Shared(t)
	if second == first || !second.alive() {
		t.Fatalf("after the server stopped, Shared gave %v (alive %v)", second.Endpoint, second.alive())
	}
}
