// Package layout names the files and folders of a state folder: where each
// thing lives, relative to the state folder, so the engine and the
// mechanisms below it build every path one way. It reads and writes
// nothing.
//
// # The state folder
//
// Part of the format (the format document of the design draws the whole
// tree):
//
//	FORMAT  config.json  history.jsonl  usage.jsonl  sweep.json  sweep.lock
//	workspaces/<key>/                 one folder per working directory (WorkspaceDir)
//	  workspace.json  index.json  drops.jsonl  calls.lock  statcache
//	  sessions/<id>.items.jsonl       the conversation (Items)
//	  sessions/<id>.changes.jsonl     change records (Changes)
//	  sessions/<id>.audit.jsonl       the trail (Audit)
//	  sessions/<id>.shell.jsonl       shell history (Shell)
//	  sessions/<id>.json              the record (Record)
//	  sessions/<id>.lock              the owner's flock (Lock)
//	  sessions/fork.lock              held while a fork numbers and makes its child
//	  owners/<id>                     the owner's hint (Owner)
//	  outputs/<id>/<output id>.zst    tool outputs
//	  tasks/<id>/tasks.jsonl, <task id>.items.jsonl   task records, sub-agent transcripts
//	  tasks/<id>/work.jsonl           background work: receipts, results, reports (package bgwork)
//	  tasks/<id>/inbox.jsonl          messages from other sessions and scripts (package inbox)
//	  hooks/<id>/<call>.json, .tree   an agent's tool call between its pre- and post-tool
//	                                  hooks (package hookmark); forget moves them with the session
//	  hooks/<id>/transcript.read, items.idx   how far the hooks read (package hookrec)
//	  objects/<2 hex>/<62 hex>[.zst]  the workspace's content-addressed store (package objects)
//	gateway.token  credentials.json  credentials.lock   the HTTP API's (package httpapi)
//	hook-installs.json                the hook lists hook uninstall leaves (package hookkept)
//	trash/<id>/                       a forgotten session, restorable for 7 days (package prune)
//	plans/<id>.json                   a forget, restore or trim at work
//	moves/<id>.json                   a session move at work (package migrate)
//	repos/<hex>.json                  the checkouts cairn saw (package checkouts)
//
// # Words
//
//   - ws: a workspace folder, relative to the state folder
//     (workspaces/<key>), as WorkspaceDir makes it.
//   - id: a session id, a lowercase version 4 UUID (ValidSessionID); no
//     other string is ever used to build a path.
package layout

import (
	"path"
)

// Names at the top of the state folder. Part of the format.
const (
	Workspaces = "workspaces"
	Trash      = "trash"
	Plans      = "plans"
	Moves      = "moves"
	Repos      = "repos"
	Config     = "config.json"
	History    = "history.jsonl"
	Usage      = "usage.jsonl"
	SweepFile  = "sweep.json"
	SweepLock  = "sweep.lock"
)

// Names inside a workspace folder. Part of the format.
const (
	Sessions      = "sessions"
	Objects       = "objects"
	Outputs       = "outputs"
	Tasks         = "tasks"
	Hooks         = "hooks"
	Owners        = "owners"
	DropsFile     = "drops.jsonl"
	CallsLock     = "calls.lock"
	StatCacheFile = "statcache"
	InfoFile      = "workspace.json"
	IndexFile     = "index.json"
)

// Suffixes of a session's files in sessions/. Part of the format.
const (
	ItemsSuffix   = ".items.jsonl"
	ChangesSuffix = ".changes.jsonl"
	AuditSuffix   = ".audit.jsonl"
	ShellSuffix   = ".shell.jsonl"
	RecordSuffix  = ".json"
	LockSuffix    = ".lock"
)

// WorkspaceDir is the folder of workspace key.
func WorkspaceDir(key string) string { return path.Join(Workspaces, key) }

// SessionsDir is ws's sessions folder.
func SessionsDir(ws string) string { return path.Join(ws, Sessions) }

// Items, Changes, Audit, Shell, Record and Lock name session id's files
// in ws's sessions folder.
func Items(ws, id string) string   { return path.Join(ws, Sessions, id+ItemsSuffix) }
func Changes(ws, id string) string { return path.Join(ws, Sessions, id+ChangesSuffix) }
func Audit(ws, id string) string   { return path.Join(ws, Sessions, id+AuditSuffix) }
func Shell(ws, id string) string   { return path.Join(ws, Sessions, id+ShellSuffix) }
func Record(ws, id string) string  { return path.Join(ws, Sessions, id+RecordSuffix) }
func Lock(ws, id string) string    { return path.Join(ws, Sessions, id+LockSuffix) }

// Owner is the owner's hint of session id.
func Owner(ws, id string) string { return path.Join(ws, Owners, id) }

// SessionFolder is session id's folder under folder (Outputs, Tasks,
// Hooks) of ws.
func SessionFolder(ws, folder, id string) string { return path.Join(ws, folder, id) }

// StatCache is ws's walks' stat cache.
func StatCache(ws string) string { return path.Join(ws, StatCacheFile) }

// TrashEntry is the trash entry of session id.
func TrashEntry(id string) string { return path.Join(Trash, id) }

// ValidSessionID reports whether s is a session id as cairn writes them:
// a lowercase version 4 UUID. Anything else is never used to build a path.
func ValidSessionID(s string) bool {
	// By hand, not uuid.Parse: a load of a remote's state journal checks
	// one a line, and this allocates nothing.
	if len(s) != 36 || s[14] != '4' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
				return false
			}
		}
	}
	return true
}

// ValidKey reports whether k can name a workspace folder: one name, not a
// dot name.
func ValidKey(k string) bool {
	if k == "" || k[0] == '.' {
		return false
	}
	for i := 0; i < len(k); i++ {
		if c := k[i]; c == '/' || c == '\\' || c == 0 {
			return false
		}
	}
	return true
}
