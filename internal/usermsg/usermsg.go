// Package usermsg turns an error into the words a person or a script reads
// of it. The packages prefix their errors with their name and wrap the
// system's errors whole, which is right for logs and for errors.Is, and
// wrong in an answer: "engine: write record: write
// /home/u/.cairn/workspaces/k/sessions/.x.json.812-9f3c….cairn-tmp: no
// space left on device" says less than "write record: cannot write
// workspaces/k/sessions/x.json: disk full".
//
// Error reads an error as the tree it is (errors.Unwrap, both forms) and
// words each part: a *fs.PathError or *os.LinkError becomes what failed
// ("cannot write", "cannot read", "cannot move") and the file, named as
// the file it was to become when the system named a temp file, and left
// out when the words before it name it already; a system error becomes its
// plain words ("disk full"); a package's name before its
// message goes. Text does the same for a message that is already text (a
// notice built before it reached the printer), by its shapes alone.
//
// Every place an error leaves cairn goes through it once: the command's
// stderr line and its --json error object (cli), the REPL's notices, an
// MCP tool's error, and the HTTP API's error bodies (httpapi), so each says
// the same thing in the same words. Leak says what of cairn's insides a
// message still shows; the tests hold every message they see to it.
package usermsg

import (
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"

	"cairn/internal/lazyre"
	"cairn/internal/vfs"
)

// packages are the names cairn's packages put before their messages.
const packages = `bgwork|changes|display|engine|execpolicy|fileplan|fstate|hookrec|httpapi|ids|importer|inbox|index|journal|jsonw|objects|patch|remote|remotews|retention|rpc|scope|shell|shellproc|tasks|term|timefmt|vfs|wsident|wskey`

// syscalls are the names of system calls and of the *os.PathError
// operations of os.Root and os.File that no message of cairn's and no
// shell line a user types holds as a word.
const syscalls = `openat|statat|fstatat|lstatat|fstat|unlinkat|renameat2?|mkdirat|readlinkat|fchmodat|fchownat|linkat|symlinkat|syncdir|readdirent|fsync|fdatasync|flock|utimensat|getdents64|pread|pwrite|ftruncate|lstat`

// commands are operations named as the shell commands a user may type
// (in a shell line cairn prints): an inside only before a path and ": ".
const commands = `mkdir|rmdir|unlink|readlink|chmod|stat|symlink`

var (
	// A package prefix at the start of the message, after a colon, a
	// semicolon or an opening parenthesis.
	pkgPrefix = lazyre.New(`(^|: |; |\()(` + packages + `): `)
	// A temp name of the grammar (vfs): a dot, the stem, the pid and the
	// random part.
	tempName = lazyre.New(`\.([^\s/]+)\.[1-9][0-9]{0,9}-[0-9a-f]{16}\.cairn-tmp\b`)
	// A system call and the one or two paths it was given, as
	// *os.PathError and *os.LinkError print them.
	syscallPath = lazyre.New(`\b(` + syscalls + `|` + commands + `) (\S+?)(?: (\S+?))?: `)
	// A word-named operation before an absolute path ("write /a/b: ").
	opAbsPath = lazyre.New(`\b(open|read|write|sync|stat|close|truncate|seek|remove|unlink|mkdir|rename|chmod|readlink|lock) (/\S*?): `)

	// What Leak looks for.
	leakPackage = lazyre.New(`(^|: |; |\(|")(` + packages + `): `)
	leakSyscall = lazyre.New(`\b(` + syscalls + `)\b|\b(` + commands + `) \S+: `)
	leakTemp    = lazyre.New(`\.cairn-tmp\b|\.[^\s/]+\.[1-9][0-9]{0,9}-[0-9a-f]{16}\b`)
)

// Error is err as one line for a person (see above); "" for nil.
func Error(err error) string {
	if err == nil {
		return ""
	}
	var b strings.Builder
	render(&b, err)
	return oneLine(b.String())
}

// oneLine is s on one line: errors.Join puts a line break between the
// errors it joins.
func oneLine(s string) string {
	return strings.ReplaceAll(strings.TrimSpace(s), "\n", "; ")
}

// render writes err's words to b, which holds the words said before it.
func render(b *strings.Builder, err error) {
	switch e := err.(type) {
	case *fs.PathError:
		b.WriteString(fileWords(b.String(), e.Op, e.Path, "", e.Err))
		return
	case *os.LinkError:
		b.WriteString(fileWords(b.String(), e.Op, e.Old, e.New, e.Err))
		return
	case *os.SyscallError:
		render(b, e.Err)
		return
	case syscall.Errno:
		b.WriteString(errnoWords(e))
		return
	}
	if err.Error() == escapesText {
		b.WriteString(escapesWords)
		return
	}
	// The error's own words, with each error it wraps put in its place
	// in its own words. A wrapper whose text does not hold its wrapped
	// errors' texts is read as text.
	rest := err.Error()
	var kids []error
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		kids = []error{u.Unwrap()}
	case interface{ Unwrap() []error }:
		kids = u.Unwrap()
	}
	for _, k := range kids {
		if k == nil {
			continue
		}
		kt := k.Error()
		i := strings.Index(rest, kt)
		if kt == "" || i < 0 {
			continue
		}
		b.WriteString(own(rest[:i]))
		render(b, k)
		rest = rest[i+len(kt):]
	}
	b.WriteString(own(rest))
}

// own is a stretch of an error's own text in a person's words.
func own(s string) string { return textKeepSpace(s) }

// fileWords words a failed operation on a file: "cannot write NAME: WHY",
// or WHY alone when said, the words before it, names the file already.
func fileWords(said, op, name, to string, err error) string {
	name, to = fileName(name), fileName(to)
	var why strings.Builder
	if err != nil {
		render(&why, err)
	}
	reason := strings.TrimSpace(why.String())
	// A rename of a temp file onto the file it was to become is the
	// write of that file.
	if to != "" && name == to {
		op, to = "write", ""
	}
	target := name
	if to != "" {
		target = to
	}
	if names(said, target) {
		return reason
	}
	if to != "" {
		return opWords(op) + " " + name + " to " + to + ": " + reason
	}
	return opWords(op) + " " + name + ": " + reason
}

// fileName is name as a person knows it: a temp file is named as the file
// it was to become.
func fileName(name string) string {
	if name == "" {
		return ""
	}
	dir, base := path.Split(name)
	if stem, ok := vfs.TempTarget(base); ok {
		return dir + stem
	}
	return name
}

// names reports whether said, the words before, names file (its path, or
// its base name as a whole word when the path is absolute).
func names(said, file string) bool {
	if said == "" || file == "" {
		return false
	}
	if strings.Contains(said, file) {
		return true
	}
	if !path.IsAbs(file) {
		return false
	}
	base := path.Base(file)
	for i := strings.Index(said, base); i >= 0; {
		before := i == 0 || strings.ContainsRune(" /(\"'", rune(said[i-1]))
		end := i + len(base)
		after := end == len(said) || strings.ContainsRune(" :;,)\"'", rune(said[end]))
		if before && after {
			return true
		}
		j := strings.Index(said[i+1:], base)
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

// opWords is what failed, for the operation op of a *fs.PathError or an
// *os.LinkError (os, os.Root and vfs name them).
func opWords(op string) string {
	switch op {
	case "open", "openat":
		return "cannot open"
	case "read", "readat", "pread":
		return "cannot read"
	case "readdir", "readdirent", "readdirnames", "getdents64":
		return "cannot list"
	case "write", "writeat", "pwrite", "sync", "fsync", "fdatasync", "syncdir", "close", "truncate", "ftruncate", "create":
		return "cannot write"
	case "stat", "statat", "lstat", "lstatat", "fstat", "fstatat", "seek":
		return "cannot read"
	case "remove", "unlink", "unlinkat", "rmdir":
		return "cannot remove"
	case "rename", "renameat", "renameat2", "exchange":
		return "cannot move"
	case "mkdir", "mkdirat", "mkdirall":
		return "cannot create the folder"
	case "symlink", "symlinkat", "link", "linkat":
		return "cannot link"
	case "readlink", "readlinkat":
		return "cannot read the link"
	case "chmod", "fchmod", "fchmodat":
		return "cannot set the mode of"
	case "chown", "fchown", "fchownat", "lchown":
		return "cannot set the owner of"
	case "chtimes", "utimensat":
		return "cannot set the time of"
	case "lock", "flock", "trylock", "rlock":
		return "cannot lock"
	}
	return "cannot use"
}

// escapesText is what os.Root (and vfs.Mem) say of a name that leaves the
// folder through a link or "..".
const (
	escapesText  = "path escapes from parent"
	escapesWords = "a symbolic link on its way leads out"
)

// errnoWords is a system error's plain words: the C library's, but for a
// full disk, which a person knows as such.
func errnoWords(e syscall.Errno) string {
	if e == syscall.ENOSPC {
		return diskFull
	}
	return e.Error()
}

const diskFull = "disk full"

// errnoText maps the C library's words that errnoWords says otherwise.
var errnoText = strings.NewReplacer(
	syscall.ENOSPC.Error(), diskFull,
	escapesText, escapesWords,
)

// Text is an error's text as one line for a person (see above), for a
// message that reached the printer as text.
func Text(s string) string { return oneLine(textKeepSpace(s)) }

func textKeepSpace(s string) string {
	s = tempName.ReplaceAllString(s, "$1")
	s = syscallPath.Regexp().ReplaceAllStringFunc(s, func(m string) string {
		sub := syscallPath.Regexp().FindStringSubmatch(m)
		if sub[3] == sub[2] {
			// A temp file renamed onto the file it was to become.
			return opWords("write") + " " + sub[2] + ": "
		}
		if sub[3] != "" {
			return opWords(sub[1]) + " " + sub[2] + " to " + sub[3] + ": "
		}
		return opWords(sub[1]) + " " + sub[2] + ": "
	})
	s = replaceOps(s)
	for {
		t := pkgPrefix.ReplaceAllString(s, "$1")
		if t == s {
			break
		}
		s = t
	}
	return errnoText.Replace(s)
}

// Leak returns the first part of msg that shows cairn's insides: a
// package's name as a prefix, a system call's name, or a temp file's name;
// "" when msg has none. The tests hold every message they make cairn print
// to it.
func Leak(msg string) string {
	for _, re := range []*lazyre.Regexp{leakPackage, leakSyscall, leakTemp} {
		if m := re.Regexp().FindString(msg); m != "" {
			return m
		}
	}
	for _, m := range opAbsPath.Regexp().FindAllStringSubmatchIndex(msg, -1) {
		if !strings.HasSuffix(msg[:m[0]], "cannot ") {
			return msg[m[0]:m[1]]
		}
	}
	return ""
}

// replaceOps words each word-named operation before an absolute path
// ("write /a/b: " is "cannot write /a/b: "), but not one worded already.
func replaceOps(s string) string {
	var b strings.Builder
	last := 0
	for _, m := range opAbsPath.Regexp().FindAllStringSubmatchIndex(s, -1) {
		if strings.HasSuffix(s[:m[0]], "cannot ") {
			continue
		}
		b.WriteString(s[last:m[0]])
		b.WriteString(opWords(s[m[2]:m[3]]) + " " + s[m[4]:m[5]] + ": ")
		last = m[1]
	}
	b.WriteString(s[last:])
	return b.String()
}
