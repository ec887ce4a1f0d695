package fsck

import (
	"encoding/json"

	"cairn/engine/internal/convlog"
	"cairn/engine/internal/migrate"
	"cairn/engine/internal/tasks"
	"cairn/journal"
)

// ItemsTree is the fold of session id's items journal that the checks run.
func ItemsTree(id string) Tree { return &tree{st: convlog.NewState(id, ""), role: itemsRole} }

// TranscriptTree is the fold of a task's transcript that the checks run.
func TranscriptTree() Tree { return &tree{st: convlog.NewState("", ""), role: transcriptRole} }

// itemsRole is what a line of kind is to fsck's check of an items journal.
func itemsRole(kind string) Role {
	switch kind {
	case convlog.KindSession:
		return Session
	case convlog.KindItem:
		return Item
	case convlog.KindTurn:
		return Turn
	case convlog.KindHead, convlog.KindTitle, convlog.KindOpen, convlog.KindMeta, convlog.KindDraft, migrate.KindMoved, journal.KindRepair:
		return Known
	}
	return Unknown
}

// transcriptRole is what a line of kind is to fsck's check of a transcript.
func transcriptRole(kind string) Role {
	switch kind {
	case convlog.KindItem:
		return Item
	case tasks.KindHeader, convlog.KindHead, journal.KindRepair:
		return Known
	}
	return Unknown
}

// tree is a load's fold of an items journal or transcript, for
type tree struct {
	st   *convlog.State
	role func(kind string) Role
	l    convlog.Line
}

func (t *tree) Decode(b []byte) (ItemLine, error) {
	t.l = convlog.Line{}
	if err := json.Unmarshal(b, &t.l); err != nil {
		return ItemLine{}, err
	}
	l := ItemLine{V: t.l.V, Kind: t.l.Kind, Role: t.role(t.l.Kind), ID: t.l.ID, Task: t.l.Task,
		Empty: t.l.Kind == convlog.KindSession || t.l.Kind == convlog.KindOpen || t.l.Kind == journal.KindRepair}
	if t.l.Parent != nil {
		l.Parent = *t.l.Parent
	}
	if t.l.Turn != nil {
		l.Turn, l.Spend = t.l.Turn.N, t.l.Turn.Spend.Problem()
	}
	return l, nil
}

func (t *tree) Has(id string) bool { return t.st.Item(id) != nil }
func (t *tree) Apply() error       { return t.st.Fold(&t.l) }
func (t *tree) Shows() (string, int, string) {
	return t.st.Title, t.st.Len(), t.st.Head
}
