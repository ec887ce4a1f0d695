// Package term holds the terminal pieces of cairn's line REPL: a line
// editor with prompt history and bound keys, and the session picker, with
// a plain numbered version for when there is no terminal.
//
// # Raw mode
//
// The editor and the picker put their terminal in raw mode only while they
// read keys (Editor.ReadLine, Pick) and restore it before they return, on
// every path. Editor.Close restores the mode the terminal had when the
// editor was made, for leaving on a signal. Output is written as is: lines
// end with "\r\n" because raw mode turns off newline translation.
//
// # Keys
//
// Keys are decoded from the bytes the terminal sends:
//
//	printable UTF-8           inserted at the cursor
//	Enter (CR, LF, CR LF)     submit
//	Backspace (DEL, Ctrl-H)   delete before the cursor
//	Delete (ESC [ 3 ~)        delete under the cursor
//	Left/Right, Ctrl-B/F      move (ESC [ C/D or ESC O C/D)
//	Home/End, Ctrl-A/E        ESC [ H/F, ESC O H/F, ESC [ 1/7 ~, ESC [ 4/8 ~
//	Up/Down, Ctrl-P/N         history walk (ESC [ A/B or ESC O A/B)
//	PgUp/PgDn                 ESC [ 5 ~, ESC [ 6 ~ (picker)
//	Ctrl-U, Ctrl-K, Ctrl-W    kill to the start, to the end, the word before
//	Ctrl-C                    discard the line (ErrInterrupted), leave the picker
//	Ctrl-D                    io.EOF on an empty line, else delete under the cursor
//	Alt+Z (ESC z), Alt+R (ESC r), F9 (ESC [ 20 ~)   free to Bind
//	Esc                       leave the picker
//
// Esc is told from the start of a sequence by where a read ends: an ESC
// that is the last byte one read returned is the Esc key, because a
// terminal sends an escape sequence whole. Unknown sequences are ignored.
//
// # Bound keys
//
// Editor.Bind ties a key to a line (Alt+Z to "/undo"): pressing it makes
// ReadLine return that line at once, while the text being typed stays for
// the next ReadLine, together with any history walk under way.
//
// # History
//
// The prompt history is a list of lines, oldest first, kept in memory;
// storing it is the caller's business, and so is adding to it
// (Editor.AddHistory), since only the caller knows which lines were
// prompts. Empty lines and a repeat of the newest entry are not added.
// Up walks back from the newest entry and stops at the oldest; Down walks
// forward, and Down from the newest entry ends the walk and puts back the
// draft — the line as it was when Up was first pressed — so a look at the
// history loses nothing. Submitting ends the walk. An entry added during a
// walk does not change the entry in view. Edits made to an entry in view
// are dropped when the walk moves on.
//
// # Picker
//
// Pick draws below the cursor: a filter line, one page of rows with the
// selected row marked "> " and in reverse video, and a footer "n of m"
// (the selected position among the m rows that match). Rows owned by a
// running process say "[open in pid N]". The page is as tall as the
// terminal allows (20 rows when out is not a terminal); paging reaches
// every row, none is left out. PickPlain prints every row numbered from 1
// and reads a number. Every field of a row is escaped by display.Line
// (package cli/display), so a stored title cannot drive the terminal; the
// line being edited is drawn with '?' for each control character instead,
// one cell per rune, so the cursor stays where it is.
package term
