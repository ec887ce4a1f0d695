package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"cairn/engine"
)

// A shell call under the default policy (shell auto, threshold 120 s)
// waits when it asks for at most the threshold and returns a receipt at
// once above it; the hard deadline is always what it asked for. One-shot
// use resolves auto to sync.
func ExampleAgentConfig_ShellCall() {
	agent := engine.DefaultConfig().Agent
	for _, timeout := range []int{engine.DefaultShellTimeoutSecs, 121} {
		d, _ := agent.ShellCall(engine.ExecPersistent, timeout)
		fmt.Println(timeout, "receipt:", d.Receipt, "deadline:", d.Deadline)
	}
	d, _ := agent.ShellCall(engine.ExecOneShot, 121)
	fmt.Println("one-shot 121 receipt:", d.Receipt)
	// Output:
	// 120 receipt: false deadline: 2m0s
	// 121 receipt: true deadline: 2m1s
	// one-shot 121 receipt: false
}

// With experimental.cross_session_messaging on, a script messages a live
// session; a session open nowhere refuses, unless the message is queued.
func ExampleWorkspace_SendMessage() {
	ctx := context.Background()
	home, _ := os.MkdirTemp("", "cairn-example-home-")
	project, _ := os.MkdirTemp("", "cairn-example-project-")
	defer os.RemoveAll(home)
	defer os.RemoveAll(project)
	store, _ := engine.Open(home)
	defer store.Close()
	os.WriteFile(filepath.Join(home, "config.json"), []byte(`{"experimental":{"cross_session_messaging":true}}`), 0o600)
	ws, _ := store.Workspace(project)

	sess := ws.Create(engine.SessionOptions{})
	sess.Append(ctx, engine.Item{Type: engine.User, Text: "watch the build"})
	sess.Commit(ctx)

	sent, _ := ws.SendMessage(ctx, sess.ID(), "the build is green", engine.MessageOptions{})
	fmt.Println("queued:", sent.Queued)
	sess.Close()

	_, err := ws.SendMessage(ctx, sess.ID(), "anyone there?", engine.MessageOptions{})
	fmt.Println("refused:", errors.Is(err, engine.ErrRefused))
	sent, _ = ws.SendMessage(ctx, sess.ID(), "for when you are back", engine.MessageOptions{Queue: true})
	fmt.Println("queued:", sent.Queued)
	// Output:
	// queued: false
	// refused: true
	// queued: true
}

// A shell call over the threshold is admitted and answered with a receipt
// (an admission, never a success); its result comes later as a tool_result
// item naming the job, delivered once. task_control lists it.
func ExampleSession_Shell() {
	ctx := context.Background()
	home, _ := os.MkdirTemp("", "cairn-example-home-")
	project, _ := os.MkdirTemp("", "cairn-example-project-")
	defer os.RemoveAll(home)
	defer os.RemoveAll(project)
	store, _ := engine.Open(home)
	defer store.Close()
	ws, _ := store.Workspace(project)
	sess := ws.Create(engine.SessionOptions{})
	defer sess.Close()
	sess.Append(ctx, engine.Item{Type: engine.User, Text: "run the slow suite"})

	settled := make(chan struct{}, 1)
	sess.OnBackground(func() {
		select {
		case settled <- struct{}{}:
		default:
		}
	})
	a, _ := sess.Shell(ctx, "echo suite passed", engine.ShellOptions{TimeoutSecs: 121})
	fmt.Println("receipt:", a.Receipt.Work, "background:", a.Receipt.Background)

	var items []engine.Item
	for len(items) == 0 {
		items, _ = sess.Deliver(ctx)
		if len(items) == 0 {
			<-settled
		}
	}
	fmt.Println(items[0].Type, items[0].Task, items[0].Text)
	page, _ := sess.TaskControl(ctx, engine.TaskControlRequest{Action: "list"})
	w := page.Page.Works[0]
	fmt.Println(w.ID, w.State, w.Outcome, "archived:", w.Archived)
	// Output:
	// receipt: shell-echo background: true
	// tool_result shell-echo shell-echo succeeded: exit 0
	// shell-echo settled succeeded archived: true
}

// A child task's report_to_parent is kept as a report item in the
// parent's conversation; a blocked report ends the task.
func ExampleSession_Report() {
	ctx := context.Background()
	home, _ := os.MkdirTemp("", "cairn-example-home-")
	project, _ := os.MkdirTemp("", "cairn-example-project-")
	defer os.RemoveAll(home)
	defer os.RemoveAll(project)
	store, _ := engine.Open(home)
	defer store.Close()
	ws, _ := store.Workspace(project)
	sess := ws.Create(engine.SessionOptions{})
	defer sess.Close()
	sess.Append(ctx, engine.Item{Type: engine.User, Text: "deploy"})
	task, _, _ := sess.StartTask(ctx, engine.TaskStart{Description: "deploy to staging"})

	it, _ := sess.Report(ctx, task.ID(), engine.ReportInput{Message: "I need the staging deploy key.\nNothing was changed.", Blocked: true})
	fmt.Println(it.Type, it.Title, "blocked:", it.Blocked)
	recs, _ := ws.Tasks(ctx, sess.ID())
	fmt.Println(recs[0].ID, recs[0].State)
	// Output:
	// report I need the staging deploy key. blocked: true
	// deploy-to-staging blocked
}

// Stopping all of a session's work cancels it and keeps later results
// from waking the agent, until the next user turn; the stop is in the
// journal, so a reopened session knows it.
func ExampleSession_StopAll() {
	ctx := context.Background()
	home, _ := os.MkdirTemp("", "cairn-example-home-")
	project, _ := os.MkdirTemp("", "cairn-example-project-")
	defer os.RemoveAll(home)
	defer os.RemoveAll(project)
	store, _ := engine.Open(home)
	defer store.Close()
	ws, _ := store.Workspace(project)
	sess := ws.Create(engine.SessionOptions{})
	sess.Append(ctx, engine.Item{Type: engine.User, Text: "watch"})
	sess.Shell(ctx, "sleep 300", engine.ShellOptions{TimeoutSecs: 600})

	stopped, _ := sess.StopAll(ctx)
	fmt.Println("cancelled:", stopped[0].ID)
	id := sess.ID()
	sess.Close()

	sess, _ = ws.Open(ctx, id, engine.SessionOptions{})
	defer sess.Close()
	on, _ := sess.Stopped()
	fmt.Println("stopped after reopening:", on)
	sess.Append(ctx, engine.Item{Type: engine.User, Text: "go on"})
	on, _ = sess.Stopped()
	fmt.Println("stopped after a user turn:", on)
	// Output:
	// cancelled: shell
	// stopped after reopening: true
	// stopped after a user turn: false
}

// A workflow run (a runtime's, with a model) gets a word-list id and keeps
// it for good: paused, it outlives the session's close, and a resume and
// the history name it the same.
func ExampleSession_PauseWork() {
	ctx := context.Background()
	home, _ := os.MkdirTemp("", "cairn-example-home-")
	project, _ := os.MkdirTemp("", "cairn-example-project-")
	defer os.RemoveAll(home)
	defer os.RemoveAll(project)
	store, _ := engine.Open(home)
	defer store.Close()
	ws, _ := store.Workspace(project)
	sess := ws.Create(engine.SessionOptions{})
	sess.Append(ctx, engine.Item{Type: engine.User, Text: "run the nightly workflow"})

	started := make(chan struct{})
	call, _ := sess.StartWork(ctx, engine.WorkStart{Type: "workflow", Label: "nightly"}, func(ctx context.Context) engine.WorkResult {
		close(started)
		<-ctx.Done()
		if engine.WorkPaused(ctx) {
			return engine.WorkResult{} // its steps so far are saved: it waits, paused
		}
		return engine.WorkResult{Outcome: "cancelled"}
	})
	<-started
	id := call.Receipt.Work
	w, _ := sess.PauseWork(ctx, id)
	_, err := call.Wait(ctx)
	fmt.Println(w.State, errors.Is(err, engine.ErrWorkPaused))
	sess.Close()

	sess, _ = ws.Open(ctx, sess.ID(), engine.SessionOptions{})
	defer sess.Close()
	resumed, _ := sess.ResumeWork(ctx, id, engine.WorkResume{}, func(ctx context.Context) engine.WorkResult {
		return engine.WorkResult{Text: "all steps done"}
	})
	res, _ := resumed.Wait(ctx)
	st, _ := sess.TaskControl(ctx, engine.TaskControlRequest{Action: "status", TaskID: id})
	fmt.Println(resumed.Receipt.Work == id, res.Outcome, st.Status.Work.ID == id, len(st.Status.Work.Calls))
	// Output:
	// paused true
	// true succeeded true 2
}
