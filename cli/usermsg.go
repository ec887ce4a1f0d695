package cli

import (
	"cairn/cli/cmdbase"
	"io"
	"strconv"
)

// userError and userText are what a person reads of an error
// (cmdbase.UserError): every error leaving the command goes through them.
func userError(err error) string { return cmdbase.UserError(err) }

func userText(s string) string { return cmdbase.UserText(s) }

// say prints a notice, msg, as the one line "cairn: MSG" on w (cmdbase.Say).
func say(w io.Writer, msg string) { cmdbase.Say(w, msg) }

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
