package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cairn/engine/internal/bgwork"
	"cairn/internal/vfs"
)

// TestAgentConfig: the agent and experimental sections parse, default to
// auto, auto, 120 and off, and refuse anything else by key.
func TestAgentConfig(t *testing.T) {
	d := DefaultConfig()
	if d.Agent.TaskExecution != execAuto || d.Agent.ShellExecution != execAuto || d.Agent.ShellAsyncThresholdSecs != 120 ||
		d.Agent.BackgroundReminderTurns != 0 ||
		d.Experimental.CrossSessionMessaging {
		t.Fatalf("defaults %+v %+v", d.Agent, d.Experimental)
	}
	c := must(parseConfig([]byte(`{"agent":{"task_execution":"sync","shell_execution":"async","shell_async_threshold_secs":30,
		"background_reminder_turns":5}, "experimental":{"cross_session_messaging":true}}`)))(t)
	if c.Agent != (AgentConfig{TaskExecution: execSync, ShellExecution: execAsync, ShellAsyncThresholdSecs: 30, BackgroundReminderTurns: 5}) ||
		!c.Experimental.CrossSessionMessaging {
		t.Fatalf("parsed %+v %+v", c.Agent, c.Experimental)
	}
	for in, want := range map[string]string{
		`{"agent":{"task_execution":"background"}}`:          `agent.task_execution: must be "sync", "auto" or "async", not "background"`,
		`{"agent":{"task_execution":"Auto"}}`:                `agent.task_execution: must be "sync", "auto" or "async", not "Auto"`,
		`{"agent":{"shell_execution":1}}`:                    `agent.shell_execution: must be "sync", "auto" or "async"`,
		`{"agent":{"shell_execution":""}}`:                   `agent.shell_execution: must be`,
		`{"agent":{"shell_async_threshold_secs":0}}`:         "agent.shell_async_threshold_secs: must be between 1 and 604800",
		`{"agent":{"shell_async_threshold_secs":-120}}`:      "agent.shell_async_threshold_secs: must be between",
		`{"agent":{"shell_async_threshold_secs":"120"}}`:     "agent.shell_async_threshold_secs: must be a whole number",
		`{"agent":{"shell_async_threshold_secs":120.5}}`:     "agent.shell_async_threshold_secs: must be a whole number",
		`{"agent":{"shellExecution":"auto"}}`:                "agent.shellExecution: unknown key (keys are snake_case: shell_execution)",
		`{"agent":{"background_reminder_turns":-1}}`:         "agent.background_reminder_turns: must be between 0 and 10000",
		`{"agent":{"background_reminder_turns":10001}}`:      "agent.background_reminder_turns: must be between 0 and 10000",
		`{"agent":{"background_reminder_turns":"2"}}`:        "agent.background_reminder_turns: must be a whole number",
		`{"agent":{"background_reminder_turns":2.5}}`:        "agent.background_reminder_turns: must be a whole number",
		`{"agent":{"backgroundReminderTurns":2}}`:            "agent.backgroundReminderTurns: unknown key (keys are snake_case: background_reminder_turns)",
		`{"agent":"auto"}`:                                   "agent: must be a JSON object",
		`{"experimental":{"cross_session_messaging":"yes"}}`: "experimental.cross_session_messaging: must be true or false",
		`{"experimental":{"sandboxes":true}}`:                "experimental.sandboxes: unknown key",
	} {
		_, err := parseConfig([]byte(in))
		if err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, ErrBadInput) {
			t.Errorf("%s: %v, want a bad-input error saying %q", in, err, want)
		}
	}
}

// TestAgentConfigReadWhereConfigIs: a bad agent value in config.json is
// refused by every reader of the file (Store.Config), as bad input.
func TestAgentConfigReadWhereConfigIs(t *testing.T) {
	home := t.TempDir()
	s := must(Open(home))(t)
	defer s.Close()
	if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(`{"agent":{"shell_execution":"later"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Config(); !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "agent.shell_execution") {
		t.Fatalf("Config = %v", err)
	}
}

// TestAgentConfigCalls: the engine's entry points decide as the seed's
// table says and turn the policy's refusals into the engine's errors.
func TestAgentConfigCalls(t *testing.T) {
	a := DefaultConfig().Agent
	for _, c := range []struct {
		timeout int
		receipt bool
	}{{DefaultShellTimeoutSecs, false}, {120, false}, {121, true}} {
		d, err := a.ShellCall(ExecPersistent, c.timeout)
		if err != nil || d.Receipt != c.receipt || d.Deadline != time.Duration(c.timeout)*time.Second {
			t.Errorf("timeout %d: %+v, %v", c.timeout, d, err)
		}
		// One-shot use resolves auto to sync.
		if d, err := a.ShellCall(ExecOneShot, c.timeout); err != nil || d.Receipt {
			t.Errorf("one-shot timeout %d: %+v, %v", c.timeout, d, err)
		}
	}
	if _, err := a.ShellCall(ExecPersistent, 0); !errors.Is(err, ErrBadInput) {
		t.Errorf("timeout 0: %v", err)
	}
	if d, err := a.TaskCall(ExecPersistent, true); err != nil || !d.Receipt {
		t.Errorf("background task: %+v, %v", d, err)
	}
	if _, err := a.TaskCall(ExecOneShot, true); !errors.Is(err, ErrRefused) {
		t.Errorf("one-shot background task: %v", err)
	}
	as := AgentConfig{TaskExecution: execAsync, ShellExecution: execAsync, ShellAsyncThresholdSecs: 120}
	if _, err := as.ShellCall(ExecOneShot, 5); !errors.Is(err, ErrRefused) {
		t.Errorf("one-shot async: %v", err)
	}
	if err := as.Promote(ExecPersistent); !errors.Is(err, ErrRefused) {
		t.Errorf("promote under async: %v", err)
	}
	if err := a.Promote(ExecPersistent); err != nil {
		t.Errorf("promote under auto: %v", err)
	}
}

// TestTaskControlReads: list pages a session's ledger newest first, 20 a
// page, through its cursor; status names one piece of work; a reader
// shows live work interrupted once no process owns the session; cancel
// and background need the owner; bad calls are bad input.
func TestTaskControlReads(t *testing.T) {
	ctx := context.Background()
	_, ws := testStore(t)
	s := newSession(t, ws)
	l, _, err := bgwork.Open(ws.s.fsys, workLedgerName(ws.dir, s.ID()), bgwork.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 25 {
		id := fmt.Sprintf("task-%d", i)
		must(l.Admit(bgwork.Admission{ID: id, Type: bgwork.TypeTask, Background: true}))(t)
		if i != 3 {
			must(l.Settle(id, bgwork.Result{}))(t)
		}
	}
	first := must(ws.TaskControl(ctx, s.ID(), TaskControlRequest{Action: "list"}))(t)
	if len(first.Page.Works) != 20 || first.Page.Works[0].ID != "task-24" || first.Page.Next == "" {
		t.Fatalf("first page: %d, %+v", len(first.Page.Works), first.Page.Next)
	}
	b, _ := json.Marshal(first)
	if !strings.HasPrefix(string(b), `{"tasks":[{"id":"task-24"`) || !strings.Contains(string(b), `"next":"`) {
		t.Fatalf("%.80s", b)
	}
	last := must(ws.TaskControl(ctx, s.ID(), TaskControlRequest{Action: "list", Cursor: first.Page.Next}))(t)
	if len(last.Page.Works) != 5 || last.Page.Works[4].ID != "task-0" || last.Page.Next != "" {
		t.Fatalf("last page %+v", last.Page)
	}
	if b, _ := json.Marshal(last); strings.Contains(string(b), `"next"`) {
		t.Fatalf("the last page has a next: %s", b)
	}
	// Owned here: the running task reads running.
	st := must(ws.TaskControl(ctx, s.ID(), TaskControlRequest{Action: "status", TaskID: "task-3"}))(t)
	if st.Status.State != "running" {
		t.Fatalf("%+v", st.Status)
	}
	l.Close()
	must(0, s.Close())(t)
	st = must(ws.TaskControl(ctx, s.ID(), TaskControlRequest{Action: "status", TaskID: "task-3"}))(t)
	if st.Status.State != "settled" || st.Status.Outcome != "interrupted" {
		t.Fatalf("no owner: %+v", st.Status)
	}
	for q, want := range map[TaskControlRequest]error{
		{Action: "cancel", TaskID: "task-3"}:     ErrRefused,
		{Action: "background", TaskID: "task-3"}: ErrRefused,
		{Action: "status"}:                       ErrBadInput,
		{Action: "list", TaskID: "task-3"}:       ErrBadInput,
		{Action: "list", Cursor: "nope"}:         ErrBadInput,
		{Action: "list", Limit: 1000}:            ErrBadInput,
		{Action: "pause", TaskID: "task-3"}:      ErrRefused,
		{Action: "resume", TaskID: "task-3"}:     ErrBadInput,
		{Action: "status", TaskID: "task-99"}:    ErrNotFound,
	} {
		if _, err := ws.TaskControl(ctx, s.ID(), q); !errors.Is(err, want) {
			t.Errorf("%+v: %v, want %v", q, err, want)
		}
	}
	if _, err := ws.TaskControl(ctx, "not-a-session", TaskControlRequest{Action: "list"}); !errors.Is(err, ErrBadInput) {
		t.Errorf("%v", err)
	}
	// A session with no ledger lists nothing.
	other := newSession(t, ws)
	empty := must(ws.TaskControl(ctx, other.ID(), TaskControlRequest{Action: "list"}))(t)
	if b, _ := json.Marshal(empty); string(b) != `{"tasks":[]}` {
		t.Fatalf("%s", b)
	}
	// fsck knows the ledger, and names a line that makes no sense.
	rep := must(ws.s.Fsck(ctx))(t)
	if len(rep.Problems) != 0 {
		t.Fatalf("%+v", rep.Problems)
	}
	name := workLedgerName(ws.dir, s.ID())
	old := must(vfs.ReadFile(ws.s.fsys, name))(t)
	must(0, vfs.WriteFileAtomic(ws.s.fsys, name, append(old, `{"v":1,"kind":"promote","work":"nobody","at":"2026-11-29T09:00:00.000Z"}`+"\n"...)))(t)
	rep = must(ws.s.Fsck(ctx))(t)
	if len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0].Problem, "1 lines make no sense") {
		t.Fatalf("%+v", rep.Problems)
	}
}

// TestCheckReportErrors: the engine's report check is the package's, its
// errors bad input.
func TestCheckReportErrors(t *testing.T) {
	r := must(checkReport(ReportInput{Message: "\nBlocked: need the token\nmore"}))(t)
	if r.Title != "Blocked: need the token" || r.Blocked {
		t.Fatalf("%+v", r)
	}
	for _, in := range []ReportInput{{}, {Message: "m", Title: strings.Repeat("t", 81)}, {Message: "m", Title: "a\nb"}} {
		if _, err := checkReport(in); !errors.Is(err, ErrBadInput) {
			t.Errorf("%+v: %v", in, err)
		}
	}
}
