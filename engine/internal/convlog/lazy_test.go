package convlog

import "testing"

// An item a state holds already stays its own when it is given later
// places (SetLater), and an item made from its place is made once; the
// count holds both kinds.
func TestLaterKeepsItemsMade(t *testing.T) {
	st := NewState("s", "/w")
	st.SetItem(&Item{ID: "a", Type: User, Text: "mine"})
	made := 0
	st.SetLater(Later{Places: map[string]int{"a": 0, "b": 1}, Make: func(p int) *Item {
		made++
		return &Item{ID: []string{"a", "b"}[p], Type: Assistant, Text: "from its place"}
	}, Type: func(int) ItemType { return Assistant }})
	if st.Len() != 2 || st.Made() != 1 {
		t.Fatalf("%d items, %d made", st.Len(), st.Made())
	}
	if it := st.Item("a"); it.Text != "mine" || st.TypeOf("a") != User || made != 0 {
		t.Fatalf("a = %+v (%s), %d made from places", it, st.TypeOf("a"), made)
	}
	if st.TypeOf("b") != Assistant || made != 0 || !st.Has("b") {
		t.Fatalf("b's type or presence made it")
	}
	if b := st.Item("b"); b == nil || st.Item("b") != b || made != 1 || st.Len() != 2 || st.Made() != 2 {
		t.Fatalf("b made %d times, %d items, %d made", made, st.Len(), st.Made())
	}
	st.DropLater()
	if st.Len() != 2 || st.Item("b") == nil {
		t.Fatalf("dropping the places lost a made item")
	}
}
