package inbox

import (
	"testing"

	"cairn/internal/vfs"
)

// FuzzRead: any inbox file folds without a panic; every message it yields
// is one a sender could have sent, each id once.
func FuzzRead(f *testing.F) {
	for _, s := range []string{
		`{"v":1,"kind":"msg","id":"m-0123456789abcdef","text":"hi","at":"2026-11-29T09:00:00.000Z"}` + "\n" +
			`{"v":1,"kind":"take","msg":"m-0123456789abcdef","item":"i-1"}` + "\n" +
			`{"v":1,"kind":"taken","msg":"m-0123456789abcdef"}` + "\n",
		`{"v":1,"ki{"v":1,"kind":"msg","id":"m-0123456789abcdef","text":"x"}` + "\n",
		"\x00\x00\n{\"v\":1,\"kind\":\"msg\"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m := vfs.NewMem()
		if err := vfs.WriteFileAtomic(m, "i", b); err != nil {
			t.Fatal(err)
		}
		msgs, taken, err := Read(m, "i")
		if err != nil || len(msgs) != len(taken) {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, msg := range msgs {
			if seen[msg.ID] || !validMsgID(msg.ID) || CheckText(msg.Text) != nil {
				t.Fatalf("%+v", msg)
			}
			seen[msg.ID] = true
		}
	})
}
