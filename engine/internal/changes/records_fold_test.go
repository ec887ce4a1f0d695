package changes

import (
	"fmt"
	"reflect"
	"testing"
)

// TestRecordsFoldOnlyItsKinds: the engine hands Records.Fold every line
// it decodes, so a line of any kind but the record kinds and drop must
// leave Records as it was, however full of the fields the record kinds
// read.
func TestRecordsFoldOnlyItsKinds(t *testing.T) {
	all := []string{KindChange, KindUndo, KindRestore, KindRedo, KindDiscard, KindDrop, KindEvidence, KindAbort, KindClose,
		KindCall, KindRecord, KindUnrecorded, KindStart, KindOff, KindRevert, KindReverted, KindUnrevert, KindUnreverted}
	seed := func() Records {
		var r Records
		foldBytes(&r, []byte(`{"v":1,"kind":"call","id":"mx4o6woz-1e229aee","at":"2026-01-01T00:00:00.000Z","tool":"exec","scope":"paths","paths":["a"]}`))
		foldBytes(&r, []byte(`{"v":1,"kind":"record","id":"mx4o6woz-1e229aef","seq":3,"at":"2026-01-01T00:00:00.000Z","tool":"exec","scope":"paths","files":[{"path":"a","before":{"oid":"`+fmt.Sprintf("%064d", 0)+`","size":0,"mode":"file","perm":"0644"}}]}`))
		return r
	}
	if r := seed(); len(r.Open) != 1 || len(r.Live) != 1 {
		t.Fatalf("seed records %+v: want one open call and one live record", r)
	}
	folded := 0
	for _, k := range all {
		line := fmt.Sprintf(`{"v":1,"kind":%q,"id":"mx4o6woz-1e229aee","ids":["mx4o6woz-1e229aef"],"seq":9,"at":"2026-01-01T00:00:00.000Z","tool":"exec","why":"gone","scope":"paths","paths":["b"],"files":[]}`, k)
		r, before := seed(), seed()
		foldBytes(&r, []byte(line))
		changed := !reflect.DeepEqual(r, before)
		if changed && !RecordKind(k) && k != KindDrop {
			t.Errorf("Records.Fold folds %q lines, which are not the records'", k)
		}
		if changed {
			folded++
		}
	}
	if folded == 0 {
		t.Fatal("no line changed the records: the test lines are not read")
	}
}
