// Package term holds the terminal pieces of cairn's line REPL: a line
// editor with prompt history and bound keys, and the session picker, with
// a plain numbered version for when there is no terminal.
//
// # The editor
//
// Editor.ReadLine draws inline, below the cursor and without the alternate
// screen, so what was typed stays in the scrollback. It keeps the text as a
// string and a cursor between two grapheme clusters (text.go): every move,
// deletion and wrap goes by whole clusters (an emoji with its skin tone or
// a ZWJ family, a letter with combining marks), found by the Unicode
// segmentation of clipperhouse/uax29 and measured in cells by
// clipperhouse/displaywidth. The text wraps at the window's width after the
// last blank that fits (layout.go), and is redrawn in place from the first
// row that changed (inline.go); a window resize is followed by a redraw
// from where the terminal's own rewrapping moved the first row, so no copy
// of the old picture stays. The terminal is raw only while ReadLine runs:
// it is restored before ReadLine returns, on every path; Editor.Close ends
// a ReadLine under way and restores the mode the terminal had when its
// keys were opened, for leaving on a signal.
//
// # Keys
//
// Keys (OpenKeys) is the one reader of the terminal's input, kept by the
// REPL for its whole run and shared by the picker and every ReadLine. Its
// decoder (the terminal library's, for bracketed paste, Alt and function
// keys) runs for as long as Keys is open, and the programs, which read no
// input themselves, take one key from it at a time. So a key that came in
// the same burst as the Enter ending a line (the next lines of a paste,
// typing ahead of the prompt) is not lost with the program that read it:
// the next ReadLine, or the first prompt after the picker, starts with it.
// The terminal is read only while a program runs; between them the read is
// interrupted without taking any bytes, the terminal is cooked (without
// echo once Keys.Quiet is called, so keys typed while a command runs do not
// show in its output), and what is typed then waits in the terminal. The
// cooked terminal turns Enter into a line feed, which the editor would take
// for Ctrl-J: the lines waiting when a program starts have their line feeds
// read as Enter (on Linux and the BSDs, which tell how much is waiting).
//
//	Enter                     submit the text (it may hold several lines)
//	Alt+Enter, Ctrl-J         a new line in the text
//	Tab                       a tab
//	a paste                   inserted whole and as it is (tabs too): a pasted block is one text
//	Ctrl-C                    discard the text (ErrInterrupted); on an empty one, say how to leave
//	                          (a Ctrl-C while the caller handles a line is SIGINT: the terminal is cooked)
//	Ctrl-D                    io.EOF on an empty text, else delete under the cursor
//	Up/Down, Ctrl-P/N         history walk from the first/last row, else move a row
//	Left/Right, Home/End, Ctrl-A/E/B/F, Alt+B/F, Ctrl-T   as in readline
//	Ctrl-K/U/W, Alt+D, Alt+Backspace   kill (to the end, the start, a word): kept for Ctrl-Y
//	Ctrl-Y, then Alt+Y        yank the newest kill, then the one before it
//	Ctrl-R                    search the history backwards (Ctrl-R again: older; Enter sends,
//	                          Esc takes it to edit, Ctrl-G puts the line back)
//	Ctrl-L                    clear the screen
//	Ctrl-Z                    suspend (the shell's fg brings the line back)
//	the leader, then e        edit the text in $VISUAL (else $EDITOR, else vi)
//
// Control characters other than tab and line feed are taken out of what is
// typed, pasted or recalled from the history, so that no text can drive
// the terminal.
//
// # Bound keys
//
// Editor.Bind ties a key, named as the library names it ("alt+z", "f9"),
// "leader" and a key ("leader z": the leader key, then z), or two keys
// ("esc esc") to a line:
// pressing it makes ReadLine return that line at once, while the text
// being typed stays for the next ReadLine, together with any history walk
// under way. SetLeader changes the leader key (Ctrl-X by default).
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
// Pick is a small inline program of the same library. It draws below the
// cursor: a filter line, one page of rows with the selected row marked
// "> " and in reverse video, a footer "n of m" (the selected position among
// the m rows that match) and, when given a preview function, the selected
// session's last prompt, read in the background. Typing filters fuzzily by
// title and id (the letters in order, spaces ignored: "dep aud" finds
// "dependency-audit"). The page follows the window's size, and lines are
// cut by display cells, so wide titles never wrap. A row starts with the
// first 8 characters of its id, so a narrow window keeps them, then "open"
// when a running process has the session ("[open in pid N]" further on;
// "[checkout NAME]" marks a session of another checkout of the repository,
// listed after this directory's);
// the whole id is shown when there is room. PickListing draws a first
// page at once and takes the whole listing from a refresh that starts once
// that page is on the terminal ("listing" in the footer until it is done):
// the rows are replaced with the filter and the selected row (by id) kept,
// and a row chosen in the meantime is held until the refresh says it is
// still there; if not, the picker says so and stays open (what is typed
// after a choice held so waits for the prompt after the picker). PickPlain
// prints every row numbered from 1 and reads a number. Every field of a
// row is escaped by display.Line (package cli/display), so a stored title
// cannot drive the terminal.
package term
