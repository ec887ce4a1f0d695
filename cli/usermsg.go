package cli

import (
	"strconv"
	"strings"

	"cairn/internal/lazyre"
)

// What a person reads of an error. The packages prefix their errors with
// their name and wrap the system's errors whole, which is right for logs
// and for errors.Is, and wrong on a screen: "engine: write FORMAT: openat
// .FORMAT6838982517948337575: read-only file system" says less to a person
// than "write FORMAT: read-only file system". userError keeps the words and
// drops the parts that only a programmer can use: package prefixes, the
// name of the system call, and the random part of a temporary file's name.

var (
	// A package prefix at the start of the message or after a colon.
	pkgPrefix = lazyre.New(`(^|: )(engine|journal|objects|index|vfs|term|wskey|ids): `)
	// A system call and the path it was given, from *os.PathError and
	// *os.LinkError ("openat .FORMAT123: ", "renameat a b: ").
	syscallPath = lazyre.New(`\b(openat|open|mkdirat|mkdir|renameat2?|rename|unlinkat|unlink|linkat|link|fsync|sync|flock|fstatat|lstat|stat|readlinkat|readlink|fchmodat|chmod)( \S+){1,2}: `)
	// A temporary file: a dot, a name, and a long random number.
	tempName = lazyre.New(`\.([A-Za-z][A-Za-z0-9_.-]*?)[0-9]{6,}\b`)
)

// userError is err as one line for a person (see above).
func userError(err error) string {
	if err == nil {
		return ""
	}
	return userText(err.Error())
}

func userText(s string) string {
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
