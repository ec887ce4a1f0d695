package engine

import "cairn/engine/internal/hookrec"

// The hooks' index of a session's state (hookrec.StateSummary), read by
// the prompt hook (hook_prompt.go).

func summaryOf(st *state) hookrec.StateSummary { return hookrec.SummaryOf(st) }

func fromIndex(st *state, ix *hookrec.Index) error { return hookrec.FromIndex(st, ix) }

func indexEntries(st *state, ids []string) []hookrec.Entry { return hookrec.Entries(st, ids) }
