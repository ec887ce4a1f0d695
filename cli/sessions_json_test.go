package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cairn/engine"
	"cairn/index"
)

// The listing's hand-written JSON is byte for byte what encoding/json
// writes for the same rows.
func TestSessionsJSONMatchesEncoding(t *testing.T) {
	at := time.Date(2026, 11, 29, 9, 12, 3, 120e6, time.UTC)
	sums := []engine.Summary{
		{Entry: index.Entry{ID: "a", Title: "t \"quoted\" <b>\n\xff", CreatedAt: at, UpdatedAt: at.Add(time.Hour), Items: 3, Tier: "full", Path: "/w", Branch: "main"}},
		{Entry: index.Entry{ID: "b", ForkOf: "a", Pinned: true, Tier: "transcript"}, OwnerPID: 4711},
	}
	var got bytes.Buffer
	if err := writeSessionsJSON(&got, sums); err != nil {
		t.Fatal(err)
	}
	rows := []sessionRow{toRow(sums[0]), toRow(sums[1])}
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	enc.Encode(rows)
	if got.String() != want.String() {
		t.Fatalf("got  %s\nwant %s", got.String(), want.String())
	}
	got.Reset()
	writeSessionsJSON(&got, nil)
	if got.String() != "[]\n" {
		t.Fatalf("empty listing: %q", got.String())
	}
}

// The picker's command line, which Main runs without the parser
// (listArgs), answers what the parser's way of the same command answers:
// the same bytes on stdout and stderr and the same exit code, for a
// listing, an empty folder and a folder that does not exist.
func TestSessionsJSONDirectPathIsParsers(t *testing.T) {
	home, dir, st, ws := openTestWorkspace(t)
	for _, title := range []string{"first", "second \"quoted\" <b>"} {
		s := ws.Create(engine.SessionOptions{})
		if _, err := s.Append(context.Background(), engine.Item{Type: engine.User, Text: title}); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	t.Setenv("CAIRN_HOME", home)
	run := func(args ...string) string {
		var out, errw bytes.Buffer
		code := Main(context.Background(), args, strings.NewReader(""), &out, &errw)
		return fmt.Sprintf("exit %d\nstdout %s\nstderr %s", code, out.String(), errw.String())
	}
	for _, d := range []string{dir, t.TempDir(), filepath.Join(dir, "missing")} {
		if _, ok := listArgs([]string{"-C", d, "sessions", "--json"}); !ok {
			t.Fatal("listArgs does not take the picker's command line")
		}
		direct, parsed := run("-C", d, "sessions", "--json"), run("--chdir="+d, "sessions", "--json=true")
		if direct != parsed {
			t.Fatalf("-C %s: direct\n%s\nparsed\n%s", d, direct, parsed)
		}
		if other := run("-C", d, "--json", "sessions"); other != direct {
			t.Fatalf("-C %s --json sessions:\n%s", d, other)
		}
		if d == dir && !strings.Contains(direct, `second \"quoted\" <b>`) {
			t.Fatalf("the listing lacks a session:\n%s", direct)
		}
	}
	for _, args := range [][]string{{"sessions"}, {"sessions", "--json", "--all"}, {"-C", "--json", "sessions", "x"}, {"--home", home, "sessions", "--json"}} {
		if _, ok := listArgs(args); ok {
			t.Fatalf("listArgs takes %q", args)
		}
	}
}
