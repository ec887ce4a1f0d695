package ids

import (
	"strings"
	"testing"
)

func TestShellLabel(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"cargo test --release", "shell-cargo-test"},
		{"cargo", "shell-cargo"},
		{"cargo +nightly test", "shell-cargo"},
		{"go test ./...", "shell-go-test"},
		{"go vet ./engine", "shell-go-vet"},
		{"/usr/local/bin/cargo build", "shell-cargo-build"},
		{"npm run build:prod --secret=hunter2", "shell-npm-run"},
		{"git -C /home/me/secret status", "shell-git"},
		{"git commit -m 'password 123'", "shell-git-commit"},
		{"mix deps.get", "shell-mix-deps-get"},
		{"FOO=1 go test > out.txt 2>&1", "shell-go-test"},
		{"ls -la /etc", "shell-ls"},
		{"rm -rf build", "shell-rm"},
		{"my-script.sh --flag", "shell"},
		{"./deploy prod", "shell"},
		{"cd sub && cargo test", "shell"},
		{"cargo test | tee log", "shell"},
		{"cargo test; go test", "shell"},
		{"cargo test &", "shell"},
		{"! cargo test", "shell"},
		{"$CARGO test", "shell"},
		{"car\"go\" test", "shell"},
		{"(cargo test)", "shell"},
		{"for f in *; do cat $f; done", "shell"},
		{"cargo $SUB", "shell-cargo"},
		{"cargo 'test'", "shell-cargo"},
		{"", "shell"},
		{"   ", "shell"},
		{"echo 'unterminated", "shell"},
		{"A=1", "shell"},
	} {
		if got := ShellLabel(c.in); got != c.want {
			t.Errorf("ShellLabel(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestShellLabelNeverLeaks: whatever the line, a label is "shell" or built
// from the table only.
func TestShellLabelNeverLeaks(t *testing.T) {
	allowed := map[string]bool{"shell": true}
	for exe, subs := range commands() {
		allowed[Normalize("shell-"+exe)] = true
		for _, s := range subs {
			allowed[Normalize("shell-"+exe+"-"+s)] = true
		}
	}
	for _, line := range []string{
		"cargo test sk-live-123", "git push https://user:tok@host/x", "go test -run SECRET",
		"docker run -e TOKEN=abc image", "curl -H 'Authorization: x' url", "python3 -c 'print(1)'",
	} {
		l := ShellLabel(line)
		if !allowed[l] || !Valid(l) || strings.Contains(l, "secret") || strings.Contains(l, "tok") {
			t.Errorf("ShellLabel(%q) = %q", line, l)
		}
	}
	for l := range allowed {
		if !Valid(l) {
			t.Errorf("table label %q is not a valid id", l)
		}
	}
}

func TestOutputHandle(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"file-grep", "output-file-grep"},
		{"file_grep", "output-file-grep"},
		{"shell-cargo-test", "output-cargo-test"},
		{"cargo test", "output-cargo-test"},
		{"shell", "output-shell"},
		{"", "output"},
		{"!!", "output"},
		{"output", "output"},
		{"output-web-fetch", "output-web-fetch"},
		{strings.Repeat("long ", 30), "output-" + strings.TrimSuffix(strings.Repeat("long-", 11), "-") + "-lo"},
	} {
		got := OutputHandle(c.in)
		if got != c.want || !Valid(got) {
			t.Errorf("OutputHandle(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	// Shell jobs and outputs allocate suffixes independently.
	_, taken := takenSet("output-cargo-test")
	if id := Unique(OutputHandle(ShellLabel("cargo test")), taken); id != "output-cargo-test-2" {
		t.Fatalf("got %q", id)
	}
}
