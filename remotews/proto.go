package remotews

import (
	"encoding/json"

	"cairn/engine"
	"cairn/remotews/rpc"
)

// Protocol is the version of the protocol: the methods, their params and
// results. A client and a host of different protocols refuse each other.
const Protocol = 3

// Methods, part of the protocol.
const (
	MethodHello            = "hello"
	MethodSessionOpen      = "session.open"
	MethodSessionClose     = "session.close"
	MethodSessionCommit    = "session.commit"
	MethodToolWrite        = "tool.write"
	MethodToolEdit         = "tool.edit"
	MethodToolRm           = "tool.rm"
	MethodToolPatch        = "tool.patch"
	MethodExec             = "exec"
	MethodUndo             = "undo"
	MethodRedo             = "redo"
	MethodSnapshotsList    = "snapshots.list"
	MethodSnapshotsRestore = "snapshots.restore"
	MethodRevertPreview    = "revert.preview"
	MethodRevertApply      = "revert.apply"
	MethodUnrevert         = "unrevert"
	MethodCallsPending     = "calls.pending"
	MethodShellsList       = "shells.list"
	MethodDiff             = "diff"
	MethodShellStart       = "shell.start"
	MethodJobsList         = "jobs.list"
	MethodJobCancel        = "job.cancel"

	// NoteExecOutput is the call notification of exec's output.
	NoteExecOutput = "exec.output"
	// NoteNotice is a host session's one-line message.
	NoteNotice = "notice"
	// NoteJobEnded is a background job's end, told to the connection
	// the host session is on.
	NoteJobEnded = "job.ended"
)

// Error codes of the protocol's error answers.
const (
	CodeFailed     = 1
	CodeBadInput   = 2
	CodeRefused    = 3
	CodeBusy       = 4
	CodeNotFound   = 5
	CodeVersion    = 6
	CodeGeneration = 7
	CodeNotReady   = 8 // a call before hello, or on a session not open
)

// Hello is the client's first call.
type Hello struct {
	Protocol int    `json:"protocol"`
	Format   int    `json:"format"`
	Version  string `json:"version"`
	Path     string `json:"path"`
	// Limits are those the client's configuration asks for; nil takes
	// the host's own.
	Limits *Limits `json:"limits,omitempty"`
	// Bound, when a session bound to a workspace is resumed, is the
	// workspace's path on the host as the session keeps it: the host
	// refuses a hello whose Path is another folder (PathData) before it
	// binds anything, so a wrong target leaves no identity behind.
	Bound string `json:"bound,omitempty"`
}

// Welcome is the host's answer to Hello.
type Welcome struct {
	Protocol   int          `json:"protocol"`
	Format     int          `json:"format"`
	Version    string       `json:"version"`
	Host       string       `json:"host"`
	Path       string       `json:"path"` // canonical, on the host
	Identity   string       `json:"identity"`
	Generation int64        `json:"generation"`
	Since      engine.Time  `json:"since"` // when the generation began
	Why        string       `json:"why"`   // first, replaced, asked
	Moved      bool         `json:"moved"` // the generation began with this hello
	Limits     Limits       `json:"limits"`
	Lowered    []LimitLower `json:"lowered,omitempty"`
}

// VersionData is the data of a CodeVersion error: what the host speaks.
type VersionData struct {
	Kind     string `json:"kind"`
	Protocol int    `json:"protocol"`
	Format   int    `json:"format"`
	Version  string `json:"version"`
}

// GenerationData is the data of a CodeGeneration error: the workspace as
// the host has it now.
type GenerationData struct {
	Kind       string      `json:"kind"`
	Identity   string      `json:"identity"`
	Generation int64       `json:"generation"`
	Since      engine.Time `json:"since"`
	Why        string      `json:"why"`
}

// PathData is the data of the CodeRefused error a hello gets when its
// Path is another folder than Bound: the folder Path is on the host.
type PathData struct {
	Kind string `json:"kind"` // "path"
	Path string `json:"path"`
}

// ConflictData is the data of the CodeRefused error of a file revert or
// unrevert refused over conflicts (engine.RevertConflictError): the
// plan, its conflicts listed, as a local refusal gives it.
type ConflictData struct {
	Kind   string             `json:"kind"` // "conflict"
	Action string             `json:"action"`
	Files  *engine.FileRevert `json:"files"`
}

// RefusedData is the data of a refusal's error answer: its reason
// apart from the word "refused" (engine.Refusal's Why), so the client
// words it as a local refusal.
type RefusedData struct {
	Kind string `json:"kind"` // "refused"
	Why  string `json:"why"`
}

// SessionOpen opens the host session of a client session. ReadOnly opens
// it to be read only (a diff, a list, a preview), as a local read opens a
// session: without taking it, so it works while another connection holds
// it; nothing is written, nothing settled, and every call that changes
// files is refused on it.
type SessionOpen struct {
	Session     string `json:"session"`
	Identity    string `json:"identity"`
	Generation  int64  `json:"generation"`
	NoSnapshots bool   `json:"no_snapshots,omitempty"`
	ReadOnly    bool   `json:"read_only,omitempty"`
}

// SessionOpened is the answer to SessionOpen.
type SessionOpened struct {
	Session     string        `json:"session"`
	HostSession string        `json:"host_session"`
	Pending     []PendingCall `json:"pending"`
}

// The states of a pending call.
const (
	// PendingSettled: the call ran to its end on the host after the
	// connection was lost; Answer (or Error) is what it answered.
	PendingSettled = "settled"
	// PendingInterrupted: the host ended during the call. The engine
	// settled its change record when the session opened again: Record is
	// the newest snapshot or change record made since it began, "" when it
	// changed nothing.
	PendingInterrupted = "interrupted"
)

// PendingCall is a call of the connection before whose answer never
// reached the client, as session.open tells it.
type PendingCall struct {
	Seq    int64           `json:"seq"`
	Method string          `json:"method"`
	Call   string          `json:"call,omitempty"`
	Item   string          `json:"item,omitempty"`
	What   string          `json:"what,omitempty"` // the file, or the shell line
	Began  engine.Time     `json:"began"`
	State  string          `json:"state"`
	Answer json.RawMessage `json:"answer,omitempty"`
	Error  string          `json:"error,omitempty"`
	Record string          `json:"record,omitempty"`
}

// SessionRef names a client session. In session.close, Had is as in
// CallRef: the client had the answers of the calls numbered up to it.
type SessionRef struct {
	Session string `json:"session"`
	Had     int64  `json:"had,omitempty"`
}

// CallRef is what every call that changes files carries: the client's
// tool_call item (or prompt) and its newest item when the call ran; Seq,
// the client's number for the call (1, 2, … on each session.open); Had,
// the number up to which the client had every call's answer when it sent
// this one. A client may send calls before the answers of those before
// have come (the host runs them in the order sent), so the host learns
// which answers arrived from Had, not from the next call's arrival.
type CallRef struct {
	Session string `json:"session"`
	Call    string `json:"call,omitempty"`
	Item    string `json:"item,omitempty"`
	Seq     int64  `json:"seq,omitempty"`
	Had     int64  `json:"had,omitempty"`
}

// ToolWrite is tool.write's params.
type ToolWrite struct {
	CallRef
	Path    string `json:"path"`
	Content []byte `json:"content"`
}

// ToolEdit is tool.edit's params.
type ToolEdit struct {
	CallRef
	Path string `json:"path"`
	Old  string `json:"old"`
	New  string `json:"new"`
	All  bool   `json:"all,omitempty"` // replace every occurrence
}

// ToolRm is tool.rm's params.
type ToolRm struct {
	CallRef
	Path string `json:"path"`
}

// ToolPatch is tool.patch's params.
type ToolPatch struct {
	CallRef
	Patch []byte `json:"patch"`
}

// Exec is exec's params.
type Exec struct {
	CallRef
	Line string `json:"line"`
	Own  bool   `json:"own,omitempty"`
}

// ExecResult is exec's answer: the engine's, and whether the line was
// cancelled (killed by a cancel) before it ended by itself.
type ExecResult struct {
	engine.ExecAnswer
	Cancelled bool `json:"cancelled,omitempty"`
}

// ExecOutput is an exec.output notification's params.
type ExecOutput struct {
	Stream string `json:"stream"` // stdout or stderr
	Data   []byte `json:"data"`
}

// SnapshotRestore is snapshots.restore's params.
type SnapshotRestore struct {
	CallRef
	Snapshot string `json:"snapshot"`
}

// Revert is revert.preview's and revert.apply's params: the boundary, as
// the client's conversation places it.
type Revert struct {
	CallRef
	Point engine.RevertPoint `json:"point"`
	// Limit, in a preview, asks for each file's content now and after,
	// each up to Limit bytes (0: none).
	Limit int64 `json:"limit,omitempty"`
}

// Notice is a notice notification's params.
type Notice struct {
	Session string `json:"session"`
	Text    string `json:"text"`
}

// Diff is diff's params: the calls whose change records to read, as the
// client's conversation selects them, each side of each file up to Limit
// bytes.
type Diff struct {
	SessionRef
	Select engine.ChangeSelection `json:"select"`
	Limit  int64                  `json:"limit"`
}

// Sides are the bytes of each side of a file change (engine.Content.Data,
// which the engine's JSON leaves out), one for each file in order.
type Sides struct {
	Before []byte `json:"before,omitempty"`
	After  []byte `json:"after,omitempty"`
}

// DiffResult is diff's answer: what the records say, and the bytes.
type DiffResult struct {
	Changes engine.Changes `json:"changes"`
	Sides   []Sides        `json:"sides"`
}

// RevertPreview is revert.preview's answer: the plan, and each file's
// content now and after the revert (Contents and Sides, in the plan's
// order; none when they cannot be read), for the preview's diffs.
type RevertPreview struct {
	engine.RevertResult
	Contents []engine.FileChange `json:"contents,omitempty"`
	Sides    []Sides             `json:"sides,omitempty"`
}

// SideBudget is the most file bytes one answer carries (SidesOf): in
// base64, with the rest of the answer, they stay well under the longest
// line the client reads.
const SideBudget = rpc.MaxLine / 2

// tooLarge is engine.Content.Missing of a side whose bytes are not shown
// for their size; the diff says so in place of the lines.
const tooLarge = "too large"

// SidesOf are the bytes of files, for the wire, up to budget bytes in
// all, taken in order: from the first side that does not fit on, a side
// goes without its bytes and is marked too large in files (which the
// answer carries too), as a side over the diff's limit is.
func SidesOf(files []engine.FileChange, budget int) []Sides {
	out := make([]Sides, len(files))
	left := budget
	take := func(c *engine.Content) []byte {
		if len(c.Data) == 0 {
			return c.Data
		}
		if len(c.Data) > left {
			left = -1
			c.Data, c.Missing = nil, tooLarge
			return nil
		}
		left -= len(c.Data)
		return c.Data
	}
	for i := range files {
		out[i] = Sides{Before: take(&files[i].Before), After: take(&files[i].After)}
	}
	return out
}

// withSides puts the bytes back into files; false when they do not match.
func withSides(files []engine.FileChange, sides []Sides) bool {
	if len(files) != len(sides) {
		return false
	}
	for i := range files {
		files[i].Before.Data, files[i].After.Data = sides[i].Before, sides[i].After
	}
	return true
}

// ShellStart is shell.start's params: a background shell line, run on the
// host as job Job (the id the client's session admitted it under), with
// Timeout seconds as its hard deadline. Its answer is engine.Receipt.
type ShellStart struct {
	CallRef
	Job     string `json:"job"`
	Line    string `json:"line"`
	Timeout int    `json:"timeout"`
}

// JobsQuery is jobs.list's params: the jobs to tell of (none: every
// live one).
type JobsQuery struct {
	SessionRef
	Jobs []string `json:"jobs,omitempty"`
}

// JobsList is jobs.list's answer: each job asked for that the host
// session's ledger knows, as it stands there (a job it does not know
// never started there).
type JobsList struct {
	Jobs []engine.BackgroundWork `json:"jobs"`
}

// JobRef is job.cancel's params; its answer is engine.BackgroundWork.
type JobRef struct {
	SessionRef
	Job string `json:"job"`
}

// JobEnded is a job.ended notification's params.
type JobEnded struct {
	Session string                `json:"session"`
	Work    engine.BackgroundWork `json:"work"`
}
