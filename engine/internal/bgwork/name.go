package bgwork

import (
	"path"

	"cairn/engine/internal/tasks"
)

// LedgerFile is the ledger's name in a session's task folder.
const LedgerFile = "work.jsonl"

// LedgerName is the ledger of session in workspace folder ws.
func LedgerName(ws, session string) string { return path.Join(tasks.Dir(ws, session), LedgerFile) }
