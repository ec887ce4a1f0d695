package main

// B13 resume on a second machine: a 1 GiB session (B5's; 64 MiB with
// --quick) pushed by one state folder to the S3 server of CAIRN_BENCH_S3,
// then resumed by a second one (`cairn -r ID --remote NAME`: its journal
// pulled and its payloads fetched, then opened and its head path walked;
// the row gives the fetch's share). Goal: at most 1.5x B5 (the same open
// and walk of the local copy, measured here) plus the transfer of the
// bytes it needs (`rclone copy` of the session's objects from the same
// server). Without the server or rclone the row says skipped.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"cairn/engine"
)

func init() { register(Case{Name: "B13", Run: runB13}) }

func runB13(env *Env) ([]Row, error) {
	endpoint := benchS3()
	skip := ""
	if endpoint == "" {
		skip = "skipped: CAIRN_BENCH_S3 not set"
	} else if _, err := exec.LookPath("rclone"); err != nil {
		skip = "skipped: rclone not found"
	}
	if skip != "" {
		return []Row{{Case: "B13", Size: skip, Anchor: "1.5x B5 + rclone copy of its objects", Goal: "<=1"}}, nil
	}
	total := int64(1 << 30)
	size := "1GiB"
	if env.Quick {
		total, size = 64<<20, "64MiB"
	}
	ctx := context.Background()
	homeA, homeB := filepath.Join(env.Dir, "home"), filepath.Join(env.Dir, "homeB")
	project := filepath.Join(env.Dir, "project")
	os.MkdirAll(project, 0o700)
	id, _, err := b5Fixture(homeA, project, total)
	if err != nil {
		return nil, err
	}
	ceiling := engine.WithMaxEagerLoadMB(int(total>>20) + 64)
	// openWalk opens the session in home and walks its head path: B5.
	openWalk := func(st *engine.Store) error {
		ws, err := st.Workspace(project)
		if err != nil {
			return err
		}
		sess, err := ws.Open(ctx, id, engine.SessionOptions{})
		if err != nil {
			return err
		}
		defer sess.Close()
		var n int64
		for _, it := range sess.Transcript() {
			n += int64(len(it.Text))
		}
		if n != total {
			return fmt.Errorf("walked %d bytes of the head path, want %d", n, total)
		}
		return nil
	}

	// B5 here, before any remote is set.
	start := time.Now()
	a, err := engine.Open(homeA, ceiling)
	if err != nil {
		return nil, err
	}
	if err := openWalk(a); err != nil {
		a.Close()
		return nil, err
	}
	b5MS := msSince(start)

	url := s3URL(endpoint, "b13")
	bucket := strings.TrimPrefix(url[:strings.Index(url, "?")], "s3://")
	err = a.AddRemote(ctx, "bench", url)
	if err == nil {
		_, err = a.Sync(ctx, "bench", engine.SyncOptions{})
	}
	a.Close()
	if err != nil {
		return nil, err
	}

	// The transfer floor: the session's objects, copied down by rclone.
	dst := filepath.Join(env.Dir, "rclone-down")
	start = time.Now()
	cmd := exec.Command("rclone", "copy", "bench:"+bucket+"/objects", dst)
	cmd.Env = rcloneCmdEnv(endpoint)
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("rclone copy: %v: %s", err, out)
	}
	transferMS := msSince(start)
	os.RemoveAll(dst)

	// The second machine: pull the session and resume it.
	var cairnMS, fetchMS float64
	var fetchCPU time.Duration
	peak, err := peakHeap(func() error {
		start, cpu := time.Now(), processCPU()
		b, err := engine.Open(homeB, ceiling)
		if err != nil {
			return err
		}
		defer b.Close()
		if err := b.AddRemote(ctx, "bench", url); err != nil {
			return err
		}
		if _, _, err := b.FetchRemote(ctx, "bench", id, project); err != nil {
			return err
		}
		fetchMS, fetchCPU = msSince(start), processCPU()-cpu
		if err := openWalk(b); err != nil {
			return err
		}
		cairnMS = msSince(start)
		return nil
	})
	if err != nil {
		return nil, err
	}
	anchor := 1.5*b5MS + transferMS
	return []Row{row("B13", fmt.Sprintf("%s (B5 here %.0f ms, transfer %.0f ms, fetch %.0f ms using %.1f s CPU)", size, b5MS, transferMS, fetchMS, fetchCPU.Seconds()), cairnMS,
		"1.5x B5 + rclone copy of its objects", anchor, "<=1", func(r float64) bool { return r <= 1 }, peak)}, nil
}
