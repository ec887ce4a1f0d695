package engine

import "cairn/engine/internal/hookrec"

// The hooks' index of a session's state (hookrec.StateSummary), read by
// the prompt hook (hook_prompt.go).

func summaryOf(st *state) hookrec.StateSummary { return hookrec.SummaryOf(st) }

func indexEntries(st *state, ids []string) []hookrec.Entry { return hookrec.Entries(st, ids) }
