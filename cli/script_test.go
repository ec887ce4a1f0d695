package cli

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	gojq "github.com/itchyny/gojq/cli"
	"github.com/rogpeppe/go-internal/testscript"
)

var updateScripts = flag.Bool("update", false, "rewrite the golden parts of script tests (cmp with -update)")

func TestMain(m *testing.M) {
	testscript.Main(messagesChecked{m}, map[string]func(){
		"cairn":           func() { hearInFile(); os.Exit(Process()) }, // as cmd/cairn runs it
		"cairn-blockturn": func() { hearInFile(); blockTurnMain() },    // cancel_pty_test.go
		// jq for the shell scripts (whole_session.sh), so they need no
		// jq installed.
		"jq": func() { os.Exit(gojq.Run()) },
	})
}

// TestScripts runs the command-line scripts of testdata/script: each runs
// the real cairn command in a fresh folder with its own state folder.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           "../testdata/script",
		UpdateScripts: *updateScripts,
		Setup: func(e *testscript.Env) error {
			scripts, err := filepath.Abs("../testdata/script")
			if err != nil {
				return err
			}
			e.Setenv("SCRIPTS", scripts)
			e.Setenv("CAIRN_HOME", e.WorkDir+"/.cairn-home")
			e.Setenv("HOME", e.WorkDir+"/home")
			e.Setenv(heardEnv, os.Getenv(heardEnv))
			return nil
		},
	})
}
