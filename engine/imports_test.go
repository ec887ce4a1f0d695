package engine

import (
	"os/exec"
	"strings"
	"testing"
)

// TestEngineLinksNoCloudSDK: the engine's import graph holds no object
// store SDK. The cloud remotes register themselves from engine/remotes,
// which the cairn command imports and the hook program does not: a Go
// program runs the init of every package linked into it, and these cost
// an agent's hook tens of milliseconds at every tool call.
func TestEngineLinksNoCloudSDK(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "cairn/engine").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var bad []string
	for _, p := range strings.Fields(string(out)) {
		for _, sdk := range []string{"gocloud.dev", "github.com/aws/", "github.com/Azure/", "cloud.google.com/", "google.golang.org/grpc", "google.golang.org/protobuf"} {
			if strings.HasPrefix(p, sdk) {
				bad = append(bad, p)
			}
		}
	}
	if len(bad) > 0 {
		t.Fatalf("the engine links %d packages of object store SDKs, e.g. %q", len(bad), bad[:min(len(bad), 5)])
	}
}
