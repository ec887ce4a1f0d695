package lazyre

import "testing"

func TestLazyMatchesAsCompiled(t *testing.T) {
	r := New(`^[a-z]{1,3}-([0-9]+)$`)
	for s, want := range map[string]bool{"ab-12": true, "abcd-1": false, "-1": false, "a-": false} {
		if got := r.MatchString(s); got != want {
			t.Errorf("%q: %v, want %v", s, got, want)
		}
	}
	if m := r.FindAllSubmatch([]byte("xy-42"), -1); len(m) != 1 || string(m[0][1]) != "42" {
		t.Errorf("submatches %q", m)
	}
	if r.String() != `^[a-z]{1,3}-([0-9]+)$` || r.Regexp().NumSubexp() != 1 {
		t.Error("source or compiled form")
	}
}

func TestBadPatternPanicsOnUse(t *testing.T) {
	r := New(`(`)
	defer func() {
		if recover() == nil {
			t.Error("a pattern that does not compile did not panic")
		}
	}()
	r.MatchString("x")
}
