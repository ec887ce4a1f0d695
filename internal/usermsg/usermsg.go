// Package usermsg turns an error into the words a person or a script reads
// of it. The packages prefix their errors with their name and wrap the
// system's errors whole, which is right for logs and for errors.Is, and
// wrong in an answer: "engine: write FORMAT: openat
// .FORMAT6838982517948337575: read-only file system" says less than "write
// FORMAT: read-only file system". Text keeps the words and drops the parts
// only a programmer can use: package prefixes, the name of the system call,
// and the random part of a temporary file's name.
//
// Every place an error leaves cairn goes through it once: the command's
// stderr line and its --json error object (cli), the REPL's notices, an
// MCP tool's error, and the HTTP API's error bodies (httpapi), so each says
// the same thing in the same words.
package usermsg

import (
	"strings"

	"cairn/internal/lazyre"
)

var (
	// A package prefix at the start of the message or after a colon.
	pkgPrefix = lazyre.New(`(^|: )(engine|journal|objects|index|vfs|term|wskey|ids|fstate|scope|httpapi): `)
	// A system call and the path it was given, from *os.PathError and
	// *os.LinkError ("openat .FORMAT123: ", "renameat a b: ").
	syscallPath = lazyre.New(`\b(openat|open|mkdirat|mkdir|renameat2?|rename|unlinkat|unlink|linkat|link|fsync|sync|flock|fstatat|lstat|stat|readlinkat|readlink|fchmodat|chmod)( \S+){1,2}: `)
	// A temporary file: a dot, a name, and a long random number.
	tempName = lazyre.New(`\.([A-Za-z][A-Za-z0-9_.-]*?)[0-9]{6,}\b`)
)

// Error is err as one line for a person (see above); "" for nil.
func Error(err error) string {
	if err == nil {
		return ""
	}
	return Text(err.Error())
}

// Text is an error's text as one line for a person (see above).
func Text(s string) string {
	s = tempName.ReplaceAllString(s, "$1")
	s = syscallPath.ReplaceAllString(s, "")
	for {
		t := pkgPrefix.ReplaceAllString(s, "$1")
		if t == s {
			break
		}
		s = t
	}
	return strings.TrimSpace(s)
}
