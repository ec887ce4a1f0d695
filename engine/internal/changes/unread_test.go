package changes

import (
	"encoding/json"
	"testing"
)

// TestMayRevertSeesEveryRevertLine: the session settles reverts on open only when
// a line may be one (mayRevert), so every line of a revert or unrevert, as
// written or with its kind spelled in escapes, must say so; a plain change
// line need not.
func TestMayRevertSeesEveryRevertLine(t *testing.T) {
	lines := []any{
		RevertLine{V: 1, Kind: KindRevert, ID: "r1", Part: 1, Parts: 1},
		DoneLine{V: 1, Kind: KindReverted, ID: "r1"},
		DoneLine{V: 1, Kind: KindUnrevert, ID: "u1"},
		DoneLine{V: 1, Kind: KindUnreverted, ID: "u1"},
	}
	for _, l := range lines {
		b, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		if !mayRevert(b) {
			t.Errorf("%s: not taken for a revert line", b)
		}
	}
	if !mayRevert([]byte(`{"v":1,"kind":"\u0072evert","id":"r1"}`)) {
		t.Error("an escaped kind not taken for a revert line")
	}
	if mayRevert([]byte(`{"v":1,"kind":"change","id":"mx4o6woz-1e229aee","seq":2,"tool":"edit","files":[{"path":"a.go"}]}`)) {
		t.Error("a change line taken for a revert line")
	}
}
