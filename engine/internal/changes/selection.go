package changes

// Selection is what a diff of a conversation kept elsewhere reads from the
// host session that keeps its records: Item as a diff takes it ("" the
// newest recorded call), whether it is a prompt (Turn: its whole turn),
// and Calls, the items whose change lines count (the call itself, or the
// prompt and every item of its turn).
type Selection struct {
	Item  string   `json:"item,omitempty"`
	Turn  bool     `json:"turn,omitempty"`
	Calls []string `json:"calls,omitempty"`
}
