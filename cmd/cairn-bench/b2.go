package main

// B2 whole-workspace record: the walk a record makes before and after a
// shell line that changes one file, on a generated tree and a copy of
// $(go env GOROOT)/src, against git status and a shadow repository. The
// measurement is engine/internal/scope's own benchmark (BenchmarkB2 in
// b2_bench_test.go there says what each row measures, and its history):
// Go keeps that package to engine, so this case runs
//
//	go test -run '^$' -bench '^BenchmarkB2$' -benchtime 1x [-short] ./engine/internal/scope
//
// in the module this command is run in (go and git on PATH) and turns the
// figures it reports into rows with their goals.

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

func init() { register(Case{Name: "B2", Run: runB2}) }

func runB2(env *Env) ([]Row, error) {
	mod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return nil, fmt.Errorf("B2 runs scope's benchmark with go, which is not on PATH: %v", err)
	}
	root := filepath.Dir(strings.TrimSpace(string(mod)))
	args := []string{"test", "-run", "^$", "-bench", "^BenchmarkB2$", "-benchtime", "1x", "-timeout", "0"}
	if env.Quick {
		args = append(args, "-short")
	}
	c := exec.Command("go", append(args, "./engine/internal/scope")...)
	c.Dir = root
	c.Env = append(os.Environ(), "TMPDIR="+env.Dir)
	out, err := c.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("B2: go test -bench in %s: %v: %s", root, err, out)
	}
	trees, err := b2Parse(out)
	if err != nil {
		return nil, err
	}
	var rows []Row
	for _, name := range []string{"generated", "goroot"} {
		f, ok := trees[name]
		if !ok {
			rows = append(rows, Row{Case: "B2", Size: name + ": skipped (see go test -bench BenchmarkB2 -v)"})
			continue
		}
		rows = append(rows, b2Rows(fmt.Sprintf("%s: %d files", name, int(f["files"])), f)...)
	}
	return rows, nil
}

// b2Parse reads the metrics of BenchmarkB2's lines, by tree.
func b2Parse(out []byte) (map[string]map[string]float64, error) {
	trees := map[string]map[string]float64{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 2 || !strings.HasPrefix(fs[0], "BenchmarkB2/") {
			continue
		}
		name := strings.TrimPrefix(fs[0], "BenchmarkB2/")
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			name = name[:i] // the GOMAXPROCS suffix
		}
		m := map[string]float64{}
		for i := 2; i+1 < len(fs); i += 2 {
			v, err := strconv.ParseFloat(fs[i], 64)
			if err != nil {
				return nil, fmt.Errorf("B2: a figure of %s does not read: %q", name, fs[i])
			}
			m[fs[i+1]] = v
		}
		trees[name] = m
	}
	if len(trees) == 0 {
		return nil, fmt.Errorf("B2: the benchmark reported no tree: %s", out)
	}
	return trees, nil
}

// b2Rows is one tree's rows, from the benchmark's metrics f.
func b2Rows(size string, f map[string]float64) []Row {
	atMost := func(g float64) func(float64) bool { return func(r float64) bool { return r <= g } }
	info := func(float64) bool { return true }
	watch, peak := f["watch-ms"], f["peak-MiB"]
	return []Row{
		row("B2", size+", cold walk", f["cold-ms"], "git status --porcelain", f["status-ms"], "info", info, peak),
		row("B2", size+", warm walk (stat cache)", f["warm-ms"], "git status --porcelain", f["status-ms"], "<=1", atMost(1), peak),
		row("B2", size+", record (2 warm walks + diff)", f["record-ms"], "shadow git add -A && write-tree, x2", f["shadow-ms"], "<=0.1", atMost(0.1), peak),
		row("B2", size+", record with watcher", watch, "shadow git add -A && write-tree, x2", f["shadow-ms"], "<=10ms", func(float64) bool { return watch <= 10 }, peak),
		row("B2", size+", first record (cold walk storing every file, durable)", f["first-ms"], "new shadow repository's add -A && write-tree", f["firstgit-ms"], "info", info, peak),
	}
}
