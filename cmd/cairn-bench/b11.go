package main

// B11 remote workspace: one turn of 20 write-tool calls of 10 KiB to a
// workspace on a host reached over one ssh connection (cairn host there),
// then the turn's end (session.commit), the calls sent without waiting for
// each answer (remotews.Session.GoWrite, GoCommit), against:
//
//   - the same turn local (B1b's cairn side: 20 ToolWrite and Commit in a
//     workspace of this machine), goal <= 1.5;
//   - each write as its own `ssh host 'cat > f'`, goal <= 0.2: what a
//     tool that reaches the host afresh for each call pays.
//
// cairn-bench finds the host through CAIRN_BENCH_SSH: an ssh command line
// whose last word is the target, [user@]host:/abs/path (an empty folder
// for the run). CAIRN_BENCH_CAIRN_PATH is the cairn the host runs
// (--cairn-path; default cairn). Without CAIRN_BENCH_SSH the case prints
// a skipped row and the run goes on.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"cairn/engine"
	"cairn/remotews"

	"github.com/google/uuid"
)

func init() { register(Case{Name: "B11", Run: runB11}) }

func runB11(env *Env) ([]Row, error) {
	spec := strings.TrimSpace(os.Getenv("CAIRN_BENCH_SSH"))
	if spec == "" {
		return []Row{{Case: "B11", Size: "skipped: CAIRN_BENCH_SSH not set (an ssh command line, then [user@]host:/path)"}}, nil
	}
	cut := strings.LastIndexAny(spec, " \t")
	if cut < 0 {
		return nil, fmt.Errorf("CAIRN_BENCH_SSH %q: want an ssh command line, then [user@]host:/path", spec)
	}
	sshLine, target := strings.TrimSpace(spec[:cut]), spec[cut+1:]
	t, err := remotews.ParseTarget(target)
	if err != nil {
		return nil, fmt.Errorf("CAIRN_BENCH_SSH: %w", err)
	}
	rounds, catRounds := 20, 3
	if env.Quick {
		rounds, catRounds = 5, 1
	}
	const warm = 2
	ctx := context.Background()
	c, err := remotews.Dial(ctx, t, remotews.Options{SSHCommand: sshLine, CairnPath: os.Getenv("CAIRN_BENCH_CAIRN_PATH"), Stderr: os.Stderr})
	if err != nil {
		return nil, err
	}
	defer c.Close()
	rs, err := c.Session(ctx, uuid.NewString(), c.Binding(), false)
	if err != nil {
		return nil, err
	}
	defer rs.Close(ctx)

	ws := filepath.Join(env.Dir, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return nil, err
	}
	ls, done, err := benchSession(env, ws)
	if err != nil {
		return nil, err
	}
	defer done()

	r := rand.New(rand.NewPCG(11, 12))
	content := func() [][]byte {
		bs := make([][]byte, b1bFiles)
		for i := range bs {
			bs[i] = textBytes(r, 10<<10)
		}
		return bs
	}
	name := func(i int) string { return fmt.Sprintf("b11/f%02d.go", i) }
	// The turn's calls are sent without waiting for each answer (the
	// host runs them in the order sent), then their answers are read:
	// the turn pays one round trip, not one per write.
	remoteTurn := func(bs [][]byte) error {
		pend := make([]*remotews.Pending[engine.ToolAnswer], len(bs))
		for i, b := range bs {
			pend[i] = rs.GoWrite(ctx, "", "", name(i), b)
		}
		end := rs.GoCommit(ctx)
		var first error
		for _, p := range pend {
			if _, err := p.Wait(); err != nil && first == nil {
				first = err
			}
		}
		if _, err := end.Wait(); err != nil && first == nil {
			first = err
		}
		return first
	}
	localTurn := func(bs [][]byte) error {
		for i, b := range bs {
			if _, err := ls.ToolWrite(ctx, name(i), b); err != nil {
				return err
			}
		}
		return ls.Commit(ctx)
	}
	catTurn := func(bs [][]byte) error {
		for i, b := range bs {
			p := path.Join(t.Path, fmt.Sprintf("b11cat/f%02d.go", i))
			cmd := exec.Command("sh", "-c", sshLine+` "$@"`, "ssh", "--", t.Host, "mkdir -p "+shq(path.Dir(p))+" && cat > "+shq(p))
			cmd.Stdin = strings.NewReader(string(b))
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("ssh cat: %v: %s", err, out)
			}
		}
		return nil
	}
	// The files exist first, so every write has a pre-image.
	first := content()
	if err := remoteTurn(first); err != nil {
		return nil, err
	}
	if err := localTurn(first); err != nil {
		return nil, err
	}
	var remoteMS, localMS, catMS []float64
	for i := range rounds + warm {
		bs := content()
		sides := []struct {
			fn  func([][]byte) error
			out *[]float64
		}{{remoteTurn, &remoteMS}, {localTurn, &localMS}}
		for k := range sides {
			s := sides[(i+k)%len(sides)]
			ms, err := timed(func() error { return s.fn(bs) })
			if err != nil {
				return nil, err
			}
			if i >= warm {
				*s.out = append(*s.out, ms)
			}
		}
	}
	for range catRounds {
		ms, err := timed(func() error { return catTurn(content()) })
		if err != nil {
			return nil, err
		}
		catMS = append(catMS, ms)
	}
	size := fmt.Sprintf("%d writes of 10 KiB over one connection to %s, then the turn's end; %d rounds", b1bFiles, t.Host, rounds)
	remote := b4Median(remoteMS)
	return []Row{
		row("B11", size, remote, "the same turn local (B1b)", b4Median(localMS), "<=1.5", func(r float64) bool { return r <= 1.5 }, 0),
		row("B11", fmt.Sprintf("%d writes of 10 KiB; %d rounds of the anchor", b1bFiles, catRounds), remote,
			"each write its own ssh host 'cat > f'", b4Median(catMS), "<=0.2", func(r float64) bool { return r <= 0.2 }, 0),
	}, nil
}

// shq quotes a word for the host's shell.
func shq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
