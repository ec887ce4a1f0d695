package convlog

// A state's items are made as they are asked for when the state was read
// from a form that knows each item's place without making it (the hooks'
// index, engine/internal/hookrec): a prompt hook in a session of thousands
// of items asks for a few of them, and making each (an Item is some 300
// bytes) was most of the memory the hook touched. Every read of an item
// goes through Item, Has, TypeOf and Len, so a state made lazily answers
// as one made whole does.

// Later is how a state makes the items it knows and has not made yet: the
// place of each (what Make takes) by id.
type Later struct {
	Places map[string]int
	Make   func(place int) *Item
	Type   func(place int) ItemType // the type of the item Make makes
	Done   func()                   // what the places are in is given back (DropLater)
}

// SetLater has st make the items of l as they are asked for; an item st
// holds already is st's.
func (st *State) SetLater(l Later) {
	for id := range st.items {
		delete(l.Places, id)
	}
	st.later = l
}

// DropLater forgets the items st knows and has not made, and gives back
// what they would be made from (Later.Done): for a state nothing more is
// read of (its session closed), which holds only its items made after.
func (st *State) DropLater() {
	if st.later.Done != nil {
		st.later.Done()
	}
	st.later = Later{}
}

// Item is item id, nil when st has none.
func (st *State) Item(id string) *Item {
	// An item is in items or in later's places, never both (SetItem):
	// a state read lazily has most in places.
	if p, ok := st.later.Places[id]; ok {
		it := st.later.Make(p)
		st.SetItem(it)
		return it
	}
	return st.items[id]
}

// TypeOf is item id's type, "" when st has none; an item not made yet
// stays so.
func (st *State) TypeOf(id string) ItemType {
	if p, ok := st.later.Places[id]; ok {
		return st.later.Type(p)
	}
	if it := st.items[id]; it != nil {
		return it.Type
	}
	return ""
}

// Has reports whether st holds item id, made or not.
func (st *State) Has(id string) bool {
	if _, ok := st.later.Places[id]; ok {
		return true
	}
	return st.items[id] != nil
}

// Made is how many of st's items are made (Len counts those not made yet
// too).
func (st *State) Made() int { return len(st.items) }

// Len is how many items st holds.
func (st *State) Len() int { return len(st.items) + len(st.later.Places) }

// SetItem puts it in st under its id, in place of one there (Order is the
// caller's).
func (st *State) SetItem(it *Item) {
	if st.items == nil {
		st.items = map[string]*Item{}
	}
	st.items[it.ID] = it
	delete(st.later.Places, it.ID)
}
