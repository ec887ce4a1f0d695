package bgwork

import (
	"errors"
	"strings"
	"testing"
)

// TestCheckReport: the message is required; a title is one line of at
// most 80 characters, else the first non-empty line cut to 80; blocked is
// false unless given.
func TestCheckReport(t *testing.T) {
	long := strings.Repeat("é", 81)
	for _, c := range []struct {
		name  string
		in    ReportInput
		title string
		err   error
	}{
		{"title given", ReportInput{Message: "details", Title: "Found it"}, "Found it", nil},
		{"title trimmed", ReportInput{Message: "details", Title: "  Found it \t"}, "Found it", nil},
		{"title of 80 characters", ReportInput{Message: "m", Title: strings.Repeat("é", 80)}, strings.Repeat("é", 80), nil},
		{"no title: first line", ReportInput{Message: "First line\nsecond"}, "First line", nil},
		{"no title: first non-empty line", ReportInput{Message: "\n \t\n  Tests fail  on\tarm64 \r\nmore"}, "Tests fail on arm64", nil},
		{"no title: cut to 80 characters", ReportInput{Message: long + "\nrest"}, strings.Repeat("é", 80), nil},
		{"no title: cut never ends in a space", ReportInput{Message: strings.Repeat("a", 79) + " b"}, strings.Repeat("a", 79), nil},
		{"blank title is no title", ReportInput{Message: "msg", Title: "   "}, "msg", nil},
		{"no message", ReportInput{Title: "t"}, "", ErrInvalid},
		{"blank message", ReportInput{Message: " \n\t"}, "", ErrInvalid},
		{"title over 80 characters", ReportInput{Message: "m", Title: long}, "", ErrInvalid},
		{"title on two lines", ReportInput{Message: "m", Title: "a\nb"}, "", ErrInvalid},
		{"title with a carriage return", ReportInput{Message: "m", Title: "a\rb"}, "", ErrInvalid},
		{"message not UTF-8", ReportInput{Message: "a\xffb"}, "", ErrInvalid},
		{"message too long", ReportInput{Message: strings.Repeat("x", MaxMessage+1)}, "", ErrInvalid},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := CheckReport(c.in)
			if !errors.Is(err, c.err) || (err == nil) != (c.err == nil) {
				t.Fatalf("err = %v, want %v", err, c.err)
			}
			if err != nil {
				return
			}
			if r.Title != c.title || r.Message != c.in.Message || r.Blocked != c.in.Blocked {
				t.Fatalf("%+v, want title %q", r, c.title)
			}
		})
	}
	r := must(CheckReport(ReportInput{Message: "stuck", Blocked: true}))(t)
	if !r.Blocked {
		t.Fatal("blocked lost")
	}
}
