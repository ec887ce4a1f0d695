package bgwork

import (
	"testing"

	"cairn/internal/vfs"
)

// FuzzRead: any journal folds without a panic into a state whose counts
// hold together, and List and Status answer over it.
func FuzzRead(f *testing.F) {
	for _, s := range []string{
		`{"v":1,"kind":"admit","work":"a","type":"task","receipt":true,"at":"2026-11-29T09:00:00.000Z"}` + "\n" +
			`{"v":1,"kind":"report","work":"a","item":"i-1","title":"t","message":"m","at":"2026-11-29T09:00:00.000Z"}` + "\n" +
			`{"v":1,"kind":"settle","work":"a","outcome":"failed","item":"i-2","at":"2026-11-29T09:00:00.000Z"}` + "\n" +
			`{"v":1,"kind":"delivered","item":"i-1","at":"2026-11-29T09:00:00.000Z"}` + "\n",
		`{"v":1,"kind":"stop","at":"x"}` + "\n" + `{"v":1,"kind":"resume"}` + "\n",
		`{"v":1,"kind":"delivered","item":"i-1"}` + "\n" + `{"v":1,"kind":"delivered","item":"i-1"}` + "\n",
		"{\"v\":1,\"kind\":\"admit\",\"work\":\"a\"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m := vfs.NewMem()
		if err := vfs.WriteFileAtomic(m, "j", b); err != nil {
			t.Fatal(err)
		}
		st, err := Read(m, "j")
		if err != nil {
			t.Fatal(err)
		}
		owed := 0
		for _, d := range st.deliveries {
			if !d.Delivered {
				owed++
			}
			if _, ok := st.by[d.Work]; !ok {
				t.Fatalf("a delivery of unknown work %q", d.Work)
			}
		}
		if owed != st.owed {
			t.Fatalf("owed %d, counted %d", st.owed, owed)
		}
		for _, w := range st.works {
			if w.owed < 0 || w.Archived && (w.State != StateSettled || w.owed != 0) {
				t.Fatalf("%+v", w)
			}
			if _, err := st.Status(w.ID); err != nil {
				t.Fatal(err)
			}
		}
		p, err := st.List("", MaxPage)
		if err != nil || len(p.Works) != min(len(st.works), MaxPage) {
			t.Fatalf("%v %d", err, len(p.Works))
		}
	})
}
