package engine

import (
	"cairn/engine/internal/convlog"
)

// Spend is what a session or a turn cost, as the runtime reports it.
type Spend = convlog.Spend

// The most one report of spend may say.
const (
	MaxSpendTokens  = convlog.MaxSpendTokens
	MaxSpendCostUSD = convlog.MaxSpendCostUSD
)

// Trust is the standing trust a session's user granted.
type Trust = convlog.Trust

// TrustRule is one recorded rule of a trust map.
type TrustRule = convlog.TrustRule

// Turn is what the runtime reports at the end of a turn (convlog.Turn).
type Turn = convlog.Turn

// turnState is the standing state a turn line records.
type turnState = convlog.TurnState
