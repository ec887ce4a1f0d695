package engine

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"testing"
)

// BenchmarkStats walks a state folder of 200 sessions, each with a payload
// object, two change records and an output: the cost of `cairn storage
// stats` per session (ns/op / 200).
func BenchmarkStats(b *testing.B) {
	ctx := context.Background()
	s, ws := benchWorkspace(b)
	defer s.Close()
	big := make([]byte, 20000)
	for i := range big {
		big[i] = byte('a' + i%26)
	}
	for i := range 200 {
		sess := ws.Create(SessionOptions{})
		must(sess.Append(ctx, Item{Type: User, Text: fmt.Sprintf("%d %s", i, big)}))(b)
		must(sess.ToolWrite(ctx, fmt.Sprintf("f%d.txt", i), big))(b)
		must(sess.ToolWrite(ctx, fmt.Sprintf("f%d.txt", i), []byte("x")))(b)
		must(sess.PutOutput(ctx, "grep", bytes.NewReader(big)))(b)
		if err := sess.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.Stats(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkChangeStores lists the change stores of 200 sessions, each with
// one change record.
func BenchmarkChangeStores(b *testing.B) {
	ctx := context.Background()
	s, ws := benchWorkspace(b)
	defer s.Close()
	for i := range 200 {
		sess := ws.Create(SessionOptions{})
		must(sess.Append(ctx, Item{Type: User, Text: "hello"}))(b)
		must(sess.ToolWrite(ctx, fmt.Sprintf("f%d.txt", i), []byte("x")))(b)
		if err := sess.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.ChangeStores(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// benchWorkspace opens a store in a fresh folder and a workspace of it.
func benchWorkspace(b *testing.B) (*Store, *Workspace) {
	s, err := Open(filepath.Join(b.TempDir(), "home"))
	if err != nil {
		b.Fatal(err)
	}
	ws, err := s.Workspace(b.TempDir())
	if err != nil {
		s.Close()
		b.Fatal(err)
	}
	return s, ws
}
