// Package reliability holds cairn's cross-package reliability and security
// suites: power loss on the in-memory filesystem, kill -9
// of a child process, injected faults (and a full disk that comes and goes
// under a session run as the REPL runs one), hostile input, two processes,
// and permissions. It has no code of its own, only tests.
//
// Default sizes run in `go test ./...`; the long runs take flags:
//
//	go test ./internal/reliability -long -timeout 60m   hundreds of rounds
//	go test ./internal/reliability -rounds 500      kill -9 rounds
package reliability
