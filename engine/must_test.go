package engine

import (
	"errors"
	"fmt"
	"testing"
)

// fatalTB records a Fatal instead of stopping the test.
type fatalTB struct {
	testing.TB
	fatal string
}

func (f *fatalTB) Helper()        {}
func (f *fatalTB) Fatal(a ...any) { f.fatal = fmt.Sprint(a...) }

// TestMustFailsTheTest: must reports an error through the test's Fatal
// (failing that test only) rather than panicking the test binary.
func TestMustFailsTheTest(t *testing.T) {
	tb := &fatalTB{TB: t}
	must(0, errors.New("boom"))(tb)
	if tb.fatal != "boom" {
		t.Fatalf("Fatal got %q, want boom", tb.fatal)
	}
	if v := must(7, nil)(tb); v != 7 {
		t.Fatalf("must(7, nil) = %d", v)
	}
}
