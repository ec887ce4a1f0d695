package vfs

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unicode/utf8"
)

// Temp names. Every temp file cairn makes, in its state folder and in a
// user's workspace, is named by one grammar, and a sweep removes a file
// only when its name matches the grammar exactly:
//
//	.<stem>.<pid>-<random>.cairn-tmp
//
// stem is the base name of the file the temp is to become (or a word, such
// as "put" for the object store), cut short when the whole name would pass
// NameMax; pid is the writer's process id in decimal; random is 16
// lowercase hex digits (64 random bits); ".cairn-tmp" is TempSuffix.
// A name cairn's users pick (".config.tmpl", ".x.tmp123") never has that
// shape, so a sweep never takes a user's file for a temp.
//
// The pid says who may still need the temp: a sweep removes it only when
// that process is gone, or, for this process's own pid, when no writer of
// this process holds it (CreateTemp and TempName register the name until
// ReleaseTemp). A process that shares a folder with another cairn process
// must see that process's pid (one pid namespace), as the session lock's
// owner pid already requires.
const (
	// TempSuffix ends every temp name (part of the format).
	TempSuffix = ".cairn-tmp"
	// NameMax is the longest file name, in bytes, on the filesystems cairn
	// writes to (NAME_MAX of Linux, macOS and the BSDs).
	NameMax = 255

	tempRandLen = 16 // hex digits of the random part
	tempPIDMax  = 10 // decimal digits of the largest pid (int32)
	// tempStemMax is the longest stem: with it, the temp name of any legal
	// base name and any pid stays within NameMax.
	tempStemMax = NameMax - len(".") - len(".") - tempPIDMax - len("-") - tempRandLen - len(TempSuffix)
)

// inFlight holds the random parts of the temp names this process has made
// and still needs. It is process-wide, as the pid in the names is.
var inFlight = struct {
	sync.Mutex
	m map[string]struct{}
}{m: map[string]struct{}{}}

// selfPID is this process's id, asked once: os.Getpid is a system call
// each time, and a file tool names and releases a temp file or two.
var selfPID = os.Getpid()

// TempName returns a new temp name in folder dir for a file that is to
// become base, and registers it as in use by this process until
// ReleaseTemp. It creates nothing (CreateTemp does).
func TempName(dir, base string) string {
	rnd := fmt.Sprintf("%016x", rand.Uint64())
	inFlight.Lock()
	inFlight.m[rnd] = struct{}{}
	inFlight.Unlock()
	return path.Join(dir, "."+tempStem(base)+"."+strconv.Itoa(selfPID)+"-"+rnd+TempSuffix)
}

// tempStem is base cut to tempStemMax bytes, at the start of a UTF-8
// sequence where base is valid UTF-8.
func tempStem(base string) string {
	if base == "" {
		return "_"
	}
	if len(base) <= tempStemMax {
		return base
	}
	n := tempStemMax
	for i := n; i > n-utf8.UTFMax && i > 0; i-- {
		if utf8.RuneStart(base[i]) {
			n = i
			break
		}
	}
	return base[:n]
}

// ReleaseTemp says this process no longer needs temp name: it was renamed
// or removed, or its writer gave up on it. A sweep may then remove it.
func ReleaseTemp(name string) {
	if rnd, pid, ok := parseTemp(path.Base(name)); ok && pid == selfPID {
		inFlight.Lock()
		delete(inFlight.m, rnd)
		inFlight.Unlock()
	}
}

// CreateTemp creates a new file in folder dir for a file that is to become
// base, named by the temp grammar, opened for reading and writing with mode
// FilePerm. Its name is registered as in use until ReleaseTemp; File.Name
// returns it.
func CreateTemp(fsys FS, dir, base string) (File, error) {
	for range 100 {
		name := TempName(dir, base)
		f, err := fsys.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, FilePerm)
		if err == nil {
			return f, nil
		}
		ReleaseTemp(name)
		if !IsExist(err) {
			return nil, err
		}
	}
	return nil, fmt.Errorf("vfs: no free temp name in %s", dir)
}

// IsTemp reports whether base, a file name, is a temp name of the grammar.
func IsTemp(base string) bool {
	_, _, ok := parseTemp(base)
	return ok
}

// TempTarget returns the stem of temp name base: the base name of the file
// the temp was to become (cut short when that name was long), when base is
// a temp name. An error about a temp file names that file to a user.
func TempTarget(base string) (string, bool) {
	if _, _, ok := parseTemp(base); !ok {
		return "", false
	}
	rest := strings.TrimSuffix(base, TempSuffix)
	rest = rest[:len(rest)-tempRandLen-1]
	return rest[1:strings.LastIndexByte(rest, '.')], true
}

// TempPID returns the pid a temp name carries, when base is one.
func TempPID(base string) (int, bool) {
	_, pid, ok := parseTemp(base)
	return pid, ok
}

// parseTemp splits a temp name into its random part and pid, reading from
// the end: the suffix, 16 hex digits, "-", 1 to 10 digits without a leading
// zero, ".", and a stem of at least one byte after the leading dot.
func parseTemp(base string) (rnd string, pid int, ok bool) {
	if len(base) > NameMax || !strings.HasPrefix(base, ".") || strings.ContainsAny(base, "/\x00") {
		return "", 0, false
	}
	rest, ok := strings.CutSuffix(base, TempSuffix)
	if !ok || len(rest) < tempRandLen+1 {
		return "", 0, false
	}
	rnd, rest = rest[len(rest)-tempRandLen:], rest[:len(rest)-tempRandLen]
	for _, c := range []byte(rnd) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return "", 0, false
		}
	}
	rest, ok = strings.CutSuffix(rest, "-")
	if !ok {
		return "", 0, false
	}
	dot := strings.LastIndexByte(rest, '.')
	digits := rest[dot+1:]
	if dot < 2 || len(digits) == 0 || len(digits) > tempPIDMax || digits[0] == '0' {
		return "", 0, false
	}
	for _, c := range []byte(digits) {
		if c < '0' || c > '9' {
			return "", 0, false
		}
	}
	pid, err := strconv.Atoi(digits)
	if err != nil {
		return "", 0, false
	}
	return rnd, pid, true
}

// TempLeftover reports whether temp name base is left over: its writer's
// process is gone, or it is this process's and no writer holds it.
// A name that is not a temp name is never left over.
func TempLeftover(base string) bool {
	rnd, pid, ok := parseTemp(base)
	if !ok {
		return false
	}
	if pid == selfPID {
		inFlight.Lock()
		_, held := inFlight.m[rnd]
		inFlight.Unlock()
		return !held
	}
	return !ProcessAlive(pid)
}

// ProcessAlive reports whether a process with this pid exists.
func ProcessAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// SweepTemps removes from folder dir the temp files (and temp links) left
// over by writers that are gone (TempLeftover), and returns how many it
// removed. Nothing else in dir is touched, folders never. A missing folder
// has none.
func SweepTemps(fsys FS, dir string) (int, error) {
	names, err := ReadDirNames(fsys, dir)
	if err != nil {
		if IsNotExist(err) {
			return 0, nil
		}
		return 0, err
	}
	n := 0
	for _, name := range names {
		if !TempLeftover(name) {
			continue
		}
		// Only a temp name is looked at: most of a folder is not one.
		fi, err := fsys.Lstat(path.Join(dir, name))
		if IsNotExist(err) || err == nil && fi.IsDir() {
			continue
		}
		if err != nil {
			return n, err
		}
		if err := fsys.Remove(path.Join(dir, name)); err != nil && !IsNotExist(err) {
			return n, fmt.Errorf("vfs: remove temp file: %w", err)
		}
		n++
	}
	return n, nil
}
