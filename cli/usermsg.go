package cli

import (
	"strconv"

	"cairn/internal/usermsg"
)

// userError and userText are what a person reads of an error
// (internal/usermsg): every error leaving the command goes through them.
func userError(err error) string { return usermsg.Error(err) }

func userText(s string) string { return usermsg.Text(s) }

// plural is "1 item", "2 items", "0 items".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// itemWord is "item" for one and "items" for any other count.
func itemWord(n int) string {
	if n == 1 {
		return "item"
	}
	return "items"
}
