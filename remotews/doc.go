// Package remotews is cairn's remote workspaces over SSH: the
// conversation stays on the client, the files and their change records on
// the host. The client starts the system ssh (so ~/.ssh/config, agents and
// jump hosts work), runs `cairn host /abs/path` there, and speaks JSON-RPC
// 2.0 with it over the connection's standard input and output (package
// rpc: one message a line, call notifications, cancel).
//
// This package holds the protocol (its methods, their params and
// results, its error codes, its version) and the client. The host is
// package remotews/host; the identity and generation of a workspace,
// which the host keeps, are package engine/wsident.
//
// # Words
//
//   - client: the machine the person types on; it keeps the session's
//     conversation, trail, usage and prompt history in its state folder.
//   - host: the machine the workspace is on; it keeps the workspace's
//     snapshots, change records, shell history and stat cache in its
//     state folder, keyed to the workspace.
//   - target: [user@]host:/abs/path, as the person writes it (--ssh).
//   - host session: the engine session on the host that holds one client
//     session's file side, its id derived from the client session's id,
//     the workspace's identity and its generation, so that the records of
//     one generation never reach another.
//   - binding: host, path, identity and generation, which a client
//     session's record keeps and every connect checks.
//
// # Starting
//
// The client runs
//
//	ssh [--ssh-command words] -- [user@]host '<cairn-path> host <path>'
//
// ("ssh" or --ssh-command / CAIRN_SSH, a shell command line run as git
// runs GIT_SSH_COMMAND; --cairn-path, default "cairn", put on the remote
// command line as it is written, as rsync's --rsync-path, so it may hold
// "env CAIRN_HOME=... /opt/cairn"). The first message is the client's
// hello; nothing else is answered before it.
//
// Before the hello's answer, the connection ending says why from ssh's
// exit status: 127, no cairn on the host (ErrNoCairn); 255, ssh itself
// failed, a refused key or an unknown host, with ssh's last words
// (ErrSSH); 2 with kong's words, a cairn that has no `host` command (an
// older one, ErrVersion); a line that is not JSON-RPC, something on the
// host printed on standard output before cairn (a login script: the line
// is named).
//
// # Methods
//
// Every method is a call the client makes; the host makes none. Params
// and results are JSON objects; a file's bytes are base64 (JSON []byte).
// The host runs a connection's calls one at a time in the order they
// were sent, each answered before the next begins, so a client may send
// a turn's calls without waiting for each answer (Session.GoWrite,
// GoCommit: one round trip for the turn) and have them run as if it had
// waited. Each call that changes files carries the client's number for it
// and the number up to which the client had every answer ("seq", "had"
// of CallRef): that, not the next call's arrival, tells the host which
// answers reached the client.
// "session" in params is the client session's id: the host session is
// found from it and the binding. Methods marked (later) are part of the
// protocol and its version but not served yet: the host answers them
// "method not found".
//
//	hello              {protocol,format,version,path,limits,bound}
//	                   -> {protocol,format,version,host,path,identity,generation,
//	                       since,why,moved,limits,lowered:[{name,asked,accepted}]}
//	                   The host checks protocol and format (another: CodeVersion,
//	                   with the host's in data), makes the path canonical (no folder
//	                   there: CodeNotFound), binds identity and generation
//	                   (wsident), and lowers each limit to what its own
//	                   configuration accepts, naming each one it lowered.
//	                   With bound (a session resumed: the folder it keeps), a
//	                   path that is another folder is refused (CodeRefused,
//	                   PathData) before anything is bound.
//	session.open       {session,identity,generation,no_snapshots,read_only}
//	                   -> {session,host_session,pending:[...]}
//	                   Opens (or makes) the host session and owns it (its flock on
//	                   the host) until session.close or the end of the connection.
//	                   Another identity or generation than the workspace's:
//	                   CodeGeneration, naming both. Owned by another host process:
//	                   CodeBusy. "pending": the calls of the connection before
//	                   whose answers the client may not have had (PendingCall),
//	                   each settled (with its answer) or interrupted (with the
//	                   newest change record since it began), told before
//	                   anything else runs (the host's call log, host/calls.go).
//	                   read_only opens it to be read only, as a local read does:
//	                   not owned (it works while another connection holds it),
//	                   nothing written or settled, "pending" empty, and every
//	                   call that changes files refused on it.
//	session.close      {session} -> {}
//	session.commit     {session} -> {}
//	                   The end of the client's turn: the host session's changes
//	                   and the folders its file tools changed are durable on return
//	                   (engine.Session.Commit), as a local turn's end makes them.
//	tool.write         {session,call,item,path,content}      -> engine.ToolAnswer
//	tool.edit          {session,call,item,path,old,new}      -> engine.ToolAnswer
//	tool.rm            {session,call,item,path}              -> engine.ToolAnswer
//	tool.patch         {session,call,item,patch}             -> engine.ToolAnswer
//	exec               {session,call,item,line,own}          -> engine.ExecAnswer+{cancelled}
//	                   While the line runs, call notifications
//	                   "exec.output" {stream:"stdout"|"stderr",data} carry what it
//	                   prints, in order, before the answer. A cancel kills the
//	                   line's process group; the answer then says what it changed,
//	                   and "cancelled":true.
//	undo               {session,item} -> engine.RestoreResult
//	redo               {session,item} -> engine.RestoreResult
//	snapshots.list     {session} -> engine.SnapshotList
//	snapshots.restore  {session,item,snapshot} -> engine.RestoreResult
//	revert.preview     {session,item,point,limit} -> engine.RevertResult+{contents,sides}
//	                   With limit, each file's content now and after the revert
//	                   (up to limit bytes a side), for the preview's diffs.
//	revert.apply       {session,item,point} -> engine.RevertResult
//	                   Refused over conflicts: CodeRefused, ConflictData (the
//	                   plan, its conflicts listed) in data.
//	                   A file revert to point (engine.RevertPoint: the item,
//	                   whether it is a prompt, its time and the client's items in
//	                   the order written), planned and applied on the host, which
//	                   keeps the records; the head is the client's to move.
//	unrevert           {session,item} -> engine.RevertResult
//	                   Its files, null when there were none to put back; the
//	                   head is the client's.
//	shells.list        {session} -> [engine.ShellEntry]
//	                   The host session's shell history, as cairn shells reads it.
//	diff               {session,select,limit} -> {changes,sides}
//	                   What the selected calls changed (engine.ChangeSelection,
//	                   made by the client's conversation), read from the host
//	                   session's change records (engine.Session.ChangesOf); sides
//	                   are each file's bytes, which engine.Changes' JSON leaves out.
//	calls.pending      {session} -> {pending:[...]}                        (later)
//	shell.start        {session,call,item,seq,had,job,line,timeout} -> engine.Receipt
//	                   A background shell line, run in the host session as job
//	                   (the id the client's session admitted it under), timeout
//	                   seconds its hard deadline there (engine.Session.ShellJob).
//	                   Its end is the notification "job.ended" {session,work}
//	                   (engine.BackgroundWork), sent to the connection the host
//	                   session is on when it ends.
//	jobs.list          {session,jobs} -> {jobs:[engine.BackgroundWork]}
//	                   How the jobs named stand in the host session's ledger; one
//	                   absent never started there. No jobs: the live ones.
//	job.cancel         {session,job} -> engine.BackgroundWork
//	                   Stops a job; it shows cancelling until job.ended.
//
// A host session whose jobs run when the client closes it or the
// connection ends is detached, not closed: its process owns it until
// the last job ends, and listens on its linger socket, where the same
// protocol is served; the next connection's cairn host relays the
// session's calls there (package host).
//
// Host to client, notifications only: "notice" {session,text}, the one-line
// messages an engine session shows its user (SessionOptions.Notice), and
// "job.ended" (above).
//
// # Errors
//
// An error answer's code says its kind and its data repeats it as a word
// ({"kind":WORD,...}); the client turns it back into an *Error that
// errors.Is matches against the engine's sentinels, so the cairn command
// exits with the code it would give locally: CodeBadInput 2, CodeRefused
// 3, CodeBusy 4, CodeNotFound 1, CodeVersion 1, CodeGeneration 1,
// CodeFailed 1.
//
// A call whose connection ends before its answer fails with ErrLost,
// naming the call and the host: the call is blocked (it may or may not
// have run there), never retried by itself, and the next connect finds
// out what became of it.
//
// # What the host needs from the client
//
// A change line on the host carries "call" and "item": the client's
// tool_call item (or the prompt of the turn) and its newest item when the
// call ran, which place the line among the conversation's items for file
// revert. A host session is opened with engine.SessionOptions.Elsewhere,
// so its lines take both from each call's params (engine.Place), and a
// file revert is placed by the client's items (engine.RevertPoint).
// Likewise the limits: the host computes the lowered ones, says so, and
// opens each host session with them (engine.SessionOptions.Limit).
package remotews
