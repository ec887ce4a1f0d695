package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkExecWorkspaceRecord: a whole-workspace record around a shell
// line that changes one file, in a tree of 5,000 files, with the
// session's watcher (as the REPL runs it) and without (each walk
// re-stats the whole tree; the stat cache spares the reads). The shell
// line itself (a fork and exec of sh) is part of each operation.
func BenchmarkExecWorkspaceRecord(b *testing.B) {
	for _, watch := range []bool{false, true} {
		b.Run(fmt.Sprintf("watch=%v", watch), func(b *testing.B) {
			ctx := context.Background()
			st, ws := benchWorkspace(b) // stats_bench_test.go
			defer st.Close()
			dir := ws.Path()
			for d := range 50 {
				os.MkdirAll(filepath.Join(dir, fmt.Sprint("d", d)), 0o755)
				for f := range 100 {
					os.WriteFile(filepath.Join(dir, fmt.Sprint("d", d), fmt.Sprint("f", f)), []byte(fmt.Sprint(d, f)), 0o644)
				}
			}
			s := ws.Create(SessionOptions{Watch: watch})
			defer s.Close()
			if _, err := s.Exec(ctx, "x=0; echo $x > d1/f1", ExecOptions{}); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := range b.N {
				a, err := s.Exec(ctx, fmt.Sprintf("x=%d; echo $x > d1/f1", i+1), ExecOptions{})
				if err != nil || a.Snapshot == nil {
					b.Fatal(err, a)
				}
			}
		})
	}
}

// BenchmarkExecFirstRecord: the first whole-workspace record of a tree of
// 5,000 files, on the real disk: every file is read and stored (an
// objects.Batch, made durable together before the call line). Each
// operation is a new store.
func BenchmarkExecFirstRecord(b *testing.B) {
	ctx := context.Background()
	dir, _ := Canonical(b.TempDir())
	for d := range 50 {
		os.MkdirAll(filepath.Join(dir, fmt.Sprint("d", d)), 0o755)
		for f := range 100 {
			os.WriteFile(filepath.Join(dir, fmt.Sprint("d", d), fmt.Sprint("f", f)), fmt.Appendf(nil, "file %d of folder %d\n", f, d), 0o644)
		}
	}
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		st, err := Open(filepath.Join(b.TempDir(), "home"))
		if err != nil {
			b.Fatal(err)
		}
		ws, err := st.Workspace(dir)
		if err != nil {
			b.Fatal(err)
		}
		s := ws.Create(SessionOptions{})
		if _, err := s.Exec(ctx, "pwd", ExecOptions{}); err != nil { // the session's files
			b.Fatal(err)
		}
		b.StartTimer()
		a, err := s.Exec(ctx, fmt.Sprintf("x=%d; echo $x > d1/f1", i), ExecOptions{})
		if err != nil || a.Snapshot == nil {
			b.Fatal(err, a)
		}
		b.StopTimer()
		s.Close()
		st.Close()
		b.StartTimer()
	}
}

// BenchmarkExecWatchedRecord: BenchmarkExecWorkspaceRecord with the
// watcher on trees of 10,000 and 50,000 files (B2's row "record with the
// watcher", through the engine): its cost must not grow with the tree,
// so the two should come out about equal. The shell line is part of each
// operation, as there.
func BenchmarkExecWatchedRecord(b *testing.B) {
	for _, n := range []int{10000, 50000} {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			ctx := context.Background()
			st, ws := benchWorkspace(b) // stats_bench_test.go
			defer st.Close()
			dir := ws.Path()
			for d := range n / 20 {
				sub := filepath.Join(dir, fmt.Sprint("p", d/25), fmt.Sprint("d", d%25))
				os.MkdirAll(sub, 0o755)
				for f := range 20 {
					os.WriteFile(filepath.Join(sub, fmt.Sprint("f", f)), []byte(fmt.Sprint(d, f)), 0o644)
				}
			}
			s := ws.Create(SessionOptions{Watch: true})
			defer s.Close()
			if _, err := s.Exec(ctx, "x=0; echo $x > p1/d1/f1", ExecOptions{}); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				a, err := s.Exec(ctx, fmt.Sprintf("x=%d; echo $x > p1/d1/f1", i+1), ExecOptions{})
				if err != nil || a.Snapshot == nil {
					b.Fatal(err, a)
				}
			}
		})
	}
}
