package bgwork

import (
	"math/rand/v2"

	"cairn/engine/ids"
)

// WorkflowID is a new workflow run id: a random word-list name
// ("neat-wanted-cowbird", ids.WordID), "-2", "-3", ... added while taken
// says it is taken, never over ids.MaxLen characters. A run keeps its id
// for good: pause, resume (Continue) and the journal's history all name it
// so. r picks the words; nil means a source seeded by the runtime.
func WorkflowID(r *rand.Rand, taken func(string) bool) string {
	return ids.WordID(r, taken)
}

func validID(id string) bool { return ids.Valid(id) }
