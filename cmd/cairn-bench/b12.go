package main

// B12 sync to an S3 server: the first push of a state folder of 10,000
// sessions (1 GB; 1,000 sessions and 100 MB with --quick) against
// `rclone copy` of the same folder to the same server (goal: at most 1x),
// then an incremental sync after one turn in one of them (goal: at most
// 200 ms, however many sessions the remote holds).
//
// The server is the one CAIRN_BENCH_S3 names (an endpoint URL, such as
// http://127.0.0.1:8333), with credentials in AWS_ACCESS_KEY_ID and
// AWS_SECRET_ACCESS_KEY. Without it, or without rclone for the first
// push, the rows say skipped and the run goes on. B12_SESSIONS and
// B12_MB change the size.

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"cairn/engine"
	"cairn/engine/wskey"
	"cairn/internal/timefmt"
)

func init() { register(Case{Name: "B12", Run: runB12}) }

// benchS3 is the S3 endpoint of CAIRN_BENCH_S3, or "".
func benchS3() string { return os.Getenv("CAIRN_BENCH_S3") }

// s3URL is a cairn remote URL for a new bucket named after what on the
// bench's server.
func s3URL(endpoint, what string) string {
	return "s3://" + newBucket(what) + "?endpoint=" + endpoint
}

func newBucket(what string) string {
	var b [4]byte
	rand.Read(b[:])
	return "cairn-bench-" + what + "-" + hex.EncodeToString(b[:])
}

// rcloneCopy copies folder src to a new bucket of the bench's server with
// rclone's defaults, configured from the environment alone, and returns
// the CPU time rclone used.
func rcloneCopy(endpoint, src, bucket string) (time.Duration, error) {
	cmd := exec.Command("rclone", "copy", src, "bench:"+bucket)
	cmd.Env = rcloneCmdEnv(endpoint)
	if out, err := cmd.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("rclone copy: %v: %s", err, out)
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), nil
}

// rcloneCmdEnv is the environment of an rclone command: a remote named
// bench on the server. rclone's S3 client refuses AWS_CA_BUNDLE with its
// own transport ("unsupported transport"), so that is left out; it has
// its own --ca-cert.
func rcloneCmdEnv(endpoint string) []string {
	var envs []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "AWS_CA_BUNDLE=") {
			envs = append(envs, e)
		}
	}
	return append(envs,
		"RCLONE_CONFIG_BENCH_TYPE=s3",
		"RCLONE_CONFIG_BENCH_PROVIDER=Other",
		"RCLONE_CONFIG_BENCH_ENDPOINT="+endpoint,
		"RCLONE_CONFIG_BENCH_ACCESS_KEY_ID="+os.Getenv("AWS_ACCESS_KEY_ID"),
		"RCLONE_CONFIG_BENCH_SECRET_ACCESS_KEY="+os.Getenv("AWS_SECRET_ACCESS_KEY"),
		"RCLONE_CONFIG_BENCH_REGION=us-east-1",
		"RCLONE_CONFIG_BENCH_FORCE_PATH_STYLE=true",
		"RCLONE_CONFIG="+os.DevNull,
	)
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

func runB12(env *Env) ([]Row, error) {
	endpoint := benchS3()
	if endpoint == "" {
		return []Row{
			{Case: "B12", Size: "skipped: CAIRN_BENCH_S3 not set", Anchor: "rclone copy", Goal: "<=1"},
			{Case: "B12", Size: "skipped: CAIRN_BENCH_S3 not set", Anchor: "incremental sync", Goal: "<=200ms"},
		}, nil
	}
	sessions, mb := envInt("B12_SESSIONS", 10000), envInt("B12_MB", 1000)
	if env.Quick {
		sessions, mb = envInt("B12_SESSIONS", 1000), envInt("B12_MB", 100)
	}
	ctx := context.Background()
	home := filepath.Join(env.Dir, "home")
	project := filepath.Join(env.Dir, "project")
	os.MkdirAll(project, 0o700)
	ids, bytes, err := b12Fixture(home, project, sessions, int64(mb)*1e6)
	if err != nil {
		return nil, err
	}
	size := fmt.Sprintf("%d sessions, %d MB", sessions, bytes/1e6)
	var rows []Row

	// The first push, once each: a second would find everything there.
	// rclone copies the state folder as it was before cairn's push wrote
	// its own state into it.
	var rcloneMS float64
	var rcloneCPU time.Duration
	_, rcloneErr := exec.LookPath("rclone")
	if rcloneErr == nil {
		start := time.Now()
		if rcloneCPU, err = rcloneCopy(endpoint, home, newBucket("rclone")); err != nil {
			return nil, err
		}
		rcloneMS = msSince(start)
	}
	st, err := engine.Open(home)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	if err := st.AddRemote(ctx, "bench", s3URL(endpoint, "b12")); err != nil {
		return nil, err
	}
	var rep *engine.SyncReport
	peak, err := peakHeap(func() error {
		start, cpu := time.Now(), processCPU()
		var err error
		rep, err = st.Sync(ctx, "bench", engine.SyncOptions{})
		pushMS, pushCPU := msSince(start), processCPU()-cpu
		if err == nil && rep.Pushed.Sessions != sessions {
			err = fmt.Errorf("the first push sent %d sessions of %d", rep.Pushed.Sessions, sessions)
		}
		if err == nil {
			if rcloneErr == nil {
				cpus := fmt.Sprintf(" (CPU s: cairn %.1f, rclone %.1f)", pushCPU.Seconds(), rcloneCPU.Seconds())
				rows = append(rows, row("B12", size+": first push"+cpus, pushMS, "rclone copy", rcloneMS, "<=1",
					func(r float64) bool { return r <= 1 }, 0))
			} else {
				rows = append(rows, Row{Case: "B12", Size: size + ": first push; anchor skipped, rclone not found", CairnMS: pushMS, Anchor: "rclone copy", Goal: "<=1"})
			}
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	rows[0].PeakMB = peak

	// Incremental: one turn in one session, then a sync; the median of
	// several, each in another session.
	runs := 5
	if env.Quick {
		runs = 3
	}
	runs = envInt("B12_RUNS", runs)
	w, err := st.Workspace(project)
	if err != nil {
		return nil, err
	}
	var times []float64
	for i := range runs {
		id := ids[(i*7919)%len(ids)]
		sess, err := w.Open(ctx, id, engine.SessionOptions{})
		if err != nil {
			return nil, err
		}
		sess.Append(ctx, engine.Item{Type: engine.User, Text: fmt.Sprintf("one more turn %d", i)})
		sess.Append(ctx, engine.Item{Type: engine.Assistant, Text: "done"})
		err = sess.EndTurn(ctx, engine.Turn{Model: "bench"})
		if cerr := sess.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, err
		}
		start := time.Now()
		rep, err := st.Sync(ctx, "bench", engine.SyncOptions{})
		ms := msSince(start)
		if err != nil {
			return nil, err
		}
		if rep.Pushed.Sessions != 1 {
			return nil, fmt.Errorf("an incremental sync sent %d sessions, want 1", rep.Pushed.Sessions)
		}
		times = append(times, ms)
	}
	inc := b4Median(times)
	rows = append(rows, Row{Case: "B12", Size: size + ": sync after one turn", CairnMS: inc, Anchor: "goal 200 ms",
		AnchorMS: 200, Ratio: inc / 200, Goal: "<=200ms", Met: inc <= 200})
	return rows, nil
}

func msSince(t time.Time) float64 { return float64(time.Since(t).Nanoseconds()) / 1e6 }

// b12Fixture writes n sessions in one workspace, each a session line, a
// prompt and two answers whose text is stored as objects, total bytes of
// objects in all. It returns their ids and the bytes written.
func b12Fixture(home, project string, n int, total int64) ([]string, int64, error) {
	s, err := engine.Open(home)
	if err != nil {
		return nil, 0, err
	}
	s.Close()
	real, err := engine.Canonical(project)
	if err != nil {
		return nil, 0, err
	}
	wsdir := filepath.Join(home, "workspaces", wskey.Key(real))
	os.MkdirAll(filepath.Join(wsdir, "sessions"), 0o700)
	info, _ := json.Marshal(wskey.Info{V: 1, Path: real, CreatedAt: time.Now().UTC()})
	os.WriteFile(filepath.Join(wsdir, "workspace.json"), info, 0o600)
	r := mrand.New(mrand.NewPCG(12, 12))
	per := max(total/int64(n)/2, 1)
	at := timefmt.Format(time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC))
	var ids []string
	var written int64
	for i := range n {
		id := fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i)
		f, err := os.Create(filepath.Join(wsdir, "sessions", id+".items.jsonl"))
		if err != nil {
			return nil, 0, err
		}
		w := bufio.NewWriter(f)
		line := func(v any) {
			b, _ := json.Marshal(v)
			w.Write(append(b, '\n'))
		}
		line(map[string]any{"v": 1, "kind": "session", "session": id, "path": real, "at": at, "build": "bench"})
		line(map[string]any{"v": 1, "kind": "item", "id": "i-0000000000000001", "type": "user", "at": at, "text": fmt.Sprintf("task %d", i)})
		parent := "i-0000000000000001"
		for j := range 2 {
			text := textBytes(r, int(per))
			sum := sha256.Sum256(text)
			oid := hex.EncodeToString(sum[:])
			p := filepath.Join(wsdir, "objects", oid[:2], oid[2:])
			os.MkdirAll(filepath.Dir(p), 0o700)
			if err := os.WriteFile(p, text, 0o600); err != nil {
				f.Close()
				return nil, 0, err
			}
			written += int64(len(text))
			itemID := fmt.Sprintf("i-%016x", j+2)
			line(map[string]any{"v": 1, "kind": "item", "id": itemID, "parent": parent, "type": "assistant", "at": at,
				"payload": map[string]any{"oid": oid, "size": len(text)}})
			parent = itemID
		}
		err = w.Flush()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, 0, err
		}
		ids = append(ids, id)
	}
	return ids, written, nil
}
