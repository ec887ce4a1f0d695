// Package audit holds the lines of the audit trail, <id>.audit.jsonl
// (Line, encoded without reflection), and its rule: it
// holds labels, gate names, counts and outcomes, never a prompt, a file's
// content or a tool's output. Labels are checked to be names, so content
// cannot reach the trail by mistake; the hooks' markers and the call
// records name their tools by the same rule.
//
// It holds no state and takes no lock.
package audit

import (
	"fmt"

	"cairn/engine/internal/errs"
	"cairn/internal/lazyre"
)

// LabelPattern is a name: letters, digits and _.:/@+- only, at most 64.
const LabelPattern = `^[A-Za-z0-9_.:/@+-]{1,64}$`

// Label matches a name (LabelPattern).
var Label = lazyre.New(LabelPattern)

// ValidLabel reports whether l is a name (Label).
func ValidLabel(l string) bool { return Label.MatchString(l) }

// CheckLabels refuses (errs.ErrBadInput) the first of ls that is not a
// name; kind says what ls are ("label", "gate", "event").
func CheckLabels(kind string, ls []string) error {
	for _, l := range ls {
		if !ValidLabel(l) {
			return fmt.Errorf("%w: audit %s %q is not a name (letters, digits and _.:/@+- only, at most 64)", errs.ErrBadInput, kind, l)
		}
	}
	return nil
}
