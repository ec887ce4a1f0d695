package cmdbase_test

import (
	"errors"
	"fmt"
	"testing"

	"cairn/cli/cmdbase"
	"cairn/engine"
	"cairn/remotews"
)

// TestClassifyRemoteWorkspaceErrors: an error of the remote workspace
// client keeps its own word in a --json answer (ssh, no_cairn, lost, …),
// wrapped or not, although cmdbase does not link that client; one that
// carries an engine kind (busy) answers as that kind.
func TestClassifyRemoteWorkspaceErrors(t *testing.T) {
	cases := []struct {
		err  error
		code int
		word string
	}{
		{&remotews.Error{Kind: remotews.ErrSSH, Msg: "ssh failed"}, cmdbase.ExitFailed, "ssh"},
		{fmt.Errorf("open: %w", &remotews.Error{Kind: remotews.ErrNoCairn, Msg: "no cairn there"}), cmdbase.ExitFailed, "no_cairn"},
		{&remotews.Error{Code: remotews.CodeBusy, Msg: "busy"}, cmdbase.ExitBusy, "busy"},
		{cmdbase.UsageErrorf("bad"), cmdbase.ExitUsage, "usage"},
		{fmt.Errorf("x: %w", engine.ErrNotFound), cmdbase.ExitFailed, "not_found"},
		{errors.New("plain"), cmdbase.ExitFailed, "failed"},
	}
	for _, c := range cases {
		if code, word := cmdbase.Classify(c.err); code != c.code || word != c.word {
			t.Errorf("Classify(%v) = %d %q, want %d %q", c.err, code, word, c.code, c.word)
		}
	}
}
