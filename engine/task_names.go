package engine

// The names of the task part (task.go, task_read.go): its states and
// types, its folders and files, and the log type. Every other task file
// uses these; they use nothing of them.

import (
	"path"

	"cairn/engine/internal/tasks"
)

// Task record states, as TaskRecord.State. They are part of the format.
const (
	TaskRunning     = tasks.Running
	TaskSettled     = tasks.Settled
	TaskCancelled   = tasks.Cancelled
	TaskInterrupted = tasks.Interrupted
	// TaskBlocked: it made a blocked report (Session.Report) and ended
	// without success; it can be continued.
	TaskBlocked = tasks.Blocked
)

// Record types, as TaskRecord.Type.
const (
	taskTypeAgent = tasks.TypeAgent // a sub-agent with a transcript
	taskTypeShell = tasks.TypeShell // a background shell job, a record only
)

// TaskTool is the tool name of a tool_call that starts a sub-agent.
const TaskTool = "task"

// tasksFolder is the folder of the task folders in a workspace folder.
const tasksFolder = tasks.Folder

func tasksDir(dir string) string         { return path.Join(dir, tasksFolder) }
func taskDir(dir, session string) string { return tasks.Dir(dir, session) }
func taskRecordsName(dir, session string) string {
	return tasks.RecordsName(dir, session)
}
func taskItemsName(dir, session, task string) string {
	return tasks.TranscriptName(dir, session, task)
}

// taskLog is a session's task part: its task folder as its owner writes
// it, each running task's Shape the fold of its transcript.
type taskLog = tasks.Log[*state]
