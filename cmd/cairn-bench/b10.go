package main

// B10 import: bring 1 GB of Claude Code transcripts (synthetic, in the
// shapes of real ones: importer.GenerateClaudeCode) into a fresh state
// folder, against reading them once with `jq -c . >/dev/null` over the same
// files, the floor for parsing every line. Goal: at most 1x.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"cairn/engine"
	"cairn/importer"
)

func init() { register(Case{Name: "B10", Run: runB10}) }

func runB10(env *Env) ([]Row, error) {
	total, per := int64(1<<30), int64(8<<20)
	if env.Quick {
		total = 64 << 20
	}
	if _, err := exec.LookPath("jq"); err != nil {
		return nil, fmt.Errorf("B10 needs jq, its anchor: %w", err)
	}
	ctx := context.Background()
	src := filepath.Join(env.Dir, "claude", "projects", "-w")
	ws := filepath.Join(env.Dir, "w")
	for _, d := range []string{src, ws} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	var files []string
	for i := int64(0); i*per < total; i++ {
		id := fmt.Sprintf("%08x-0000-4000-8000-000000000000", i)
		name := filepath.Join(src, id+".jsonl")
		f, err := os.Create(name)
		if err != nil {
			return nil, err
		}
		err = importer.GenerateClaudeCode(f, uint64(i+1), per, id, ws)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, err
		}
		files = append(files, name)
	}
	// Both read the files from the page cache: one read first.
	for _, f := range files {
		if _, err := os.ReadFile(f); err != nil {
			return nil, err
		}
	}
	jq := func() error {
		cmd := exec.Command("jq", append([]string{"-c", "."}, files...)...) // stdout: the null device
		return cmd.Run()
	}
	var items int
	run := 0
	cairn := func() error {
		run++
		s, err := engine.Open(filepath.Join(env.Dir, fmt.Sprintf("home%d", run)))
		if err != nil {
			return err
		}
		defer s.Close()
		rep, err := importer.Run(ctx, s, importer.AgentClaudeCode, files, importer.Options{})
		if err != nil {
			return err
		}
		if rep.Failed > 0 || rep.Created != len(files) {
			return fmt.Errorf("import: %d failed, %d created of %d", rep.Failed, rep.Created, len(files))
		}
		items = rep.Items
		return nil
	}
	var cm, fm []float64
	peak, err := peakHeap(func() (err error) {
		cm, fm, err = alternate(2, 0, cairn, jq)
		return err
	})
	if err != nil {
		return nil, err
	}
	size := fmt.Sprintf("%d MiB in %d sessions, %d items", total>>20, len(files), items)
	return []Row{row("B10", size, b4Median(cm), "jq -c . >/dev/null", b4Median(fm), "<=1",
		func(r float64) bool { return r <= 1 }, peak)}, nil
}
