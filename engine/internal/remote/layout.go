package remote

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"cairn/engine/internal/layout"
	"cairn/internal/lazyre"
	"cairn/internal/vfs"
	"cairn/objects"
)

// Keys of a remote (part of the format: a remote written by one build is
// read by the next).
const (
	formatKey     = "cairn-remote.json" // {"v":1,"format":1}
	objectsPrefix = "objects/"          // objects/<2 hex>/<62 hex>[.zst]
	journalsPref  = "journals/"         // journals/<session>/<file>/<gen>/<offset>
	outputsPrefix = "outputs/"          // outputs/<session>/<output file>
	usagePrefix   = "usage/"            // usage/<machine>/<gen>/<offset>
	logPrefix     = "log/"              // log/<machine>/<seq>.json
	machinesPref  = "machines/"         // machines/<machine>.json
	leasesPrefix  = "leases/"           // leases/<session>.json
	tombsPrefix   = "tombstones/"       // tombstones/<session>.json
	remoteFormat  = 1
)

// Journal files of a session, named relative to the session (the names
// keys and the log use): the four journals of sessions/, and the task
// records and sub-agent transcripts of tasks/<session>/.
const (
	FileItems   = "items.jsonl"
	FileChanges = "changes.jsonl"
	FileAudit   = "audit.jsonl"
	FileShell   = "shell.jsonl"
	taskFolder  = "tasks/"
)

// sessionFiles are the journals every session may have, the items journal
// last: a pull writes it last, so a session appears here only once the
// rest of what it names is in place.
var sessionFiles = []string{FileChanges, FileAudit, FileShell, FileItems}

// LocalName is the state-folder name of a session's journal file in
// workspace folder ws.
func LocalName(ws, id, file string) string {
	if strings.HasPrefix(file, taskFolder) {
		return path.Join(ws, "tasks", id, strings.TrimPrefix(file, taskFolder))
	}
	return path.Join(ws, "sessions", id+"."+file)
}

// outputsDir is the folder of a session's retained tool outputs.
func outputsDir(ws, id string) string { return path.Join(ws, "outputs", id) }

// objectsDir is a workspace's object store.
func objectsDir(ws string) string { return path.Join(ws, "objects") }

func offsetName(off int64) string { return fmt.Sprintf("%016d", off) }

func segmentKey(id, file string, gen int, off int64) string {
	return journalsPref + id + "/" + file + "/" + strconv.Itoa(gen) + "/" + offsetName(off)
}

// parseSegmentKey splits journals/<session>/<file>/<gen>/<offset>.
func parseSegmentKey(key string) (id, file string, gen int, off int64, ok bool) {
	rest, found := strings.CutPrefix(key, journalsPref)
	if !found {
		return "", "", 0, 0, false
	}
	parts := strings.Split(rest, "/")
	if len(parts) < 4 {
		return "", "", 0, 0, false
	}
	n := len(parts)
	g, err1 := strconv.Atoi(parts[n-2])
	o, err2 := strconv.ParseInt(parts[n-1], 10, 64)
	if err1 != nil || err2 != nil || g < 0 || o < 0 || len(parts[n-1]) != 16 {
		return "", "", 0, 0, false
	}
	file = strings.Join(parts[1:n-2], "/")
	if !validFile(file) || !validID(parts[0]) {
		return "", "", 0, 0, false
	}
	return parts[0], file, g, o, true
}

var (
	taskRE = lazyre.New(`^tasks/(tasks\.jsonl|[A-Za-z0-9._-]+\.items\.jsonl)$`)
	oidRE  = lazyre.New(`"oid":"([0-9a-f]{64})"`)
	nameRE = lazyre.New(`^[A-Za-z0-9._-]{1,128}$`)
)

// validID reports a session id as cairn writes them (layout.ValidSessionID).
func validID(id string) bool { return layout.ValidSessionID(id) }

// validFile reports a journal file name a remote may name: one of the
// four journals or a task file. Nothing else is ever written locally.
func validFile(f string) bool {
	switch f {
	case FileItems, FileChanges, FileAudit, FileShell:
		return true
	}
	return taskRE.MatchString(f) && !strings.Contains(f, "..")
}

// validName reports a machine name or an output file name: one path
// element, no dots alone.
func validName(s string) bool { return nameRE.MatchString(s) && s != "." && s != ".." }

func objectKey(id objects.ID, compressed bool) string {
	h := id.String()
	k := objectsPrefix + h[:2] + "/" + h[2:]
	if compressed {
		k += ".zst"
	}
	return k
}

// parseObjectKey reads objects/<2 hex>/<62 hex>[.zst].
func parseObjectKey(key string) (objects.ID, bool, bool) {
	rest, ok := strings.CutPrefix(key, objectsPrefix)
	if !ok || len(rest) < 65 || rest[2] != '/' {
		return objects.ID{}, false, false
	}
	z := strings.HasSuffix(rest, ".zst")
	h := rest[:2] + strings.TrimSuffix(rest[3:], ".zst")
	id, err := objects.ParseID(h)
	if err != nil {
		return objects.ID{}, false, false
	}
	return id, z, true
}

// namedObjects appends the ids of the objects the lines of b name.
func namedObjects(b []byte, into map[objects.ID]bool) {
	for _, m := range oidRE.FindAllSubmatch(b, -1) {
		if id, err := objects.ParseID(string(m[1])); err == nil {
			into[id] = true
		}
	}
}

func logKey(machine string, seq int64) string {
	return logPrefix + machine + "/" + offsetName(seq) + ".json"
}
func machineKey(machine string) string { return machinesPref + machine + ".json" }
func leaseKey(id string) string        { return leasesPrefix + id + ".json" }
func tombKey(id string) string         { return tombsPrefix + id + ".json" }
func usageKey(machine string, gen int, off int64) string {
	return usagePrefix + machine + "/" + fmt.Sprint(gen) + "/" + offsetName(off)
}
func outputKey(id, name string) string { return outputsPrefix + id + "/" + name }

// ListSessions lists the saved sessions of workspace folder ws (for
// directory dir) from one listing of its sessions folder and one of its
// tasks folder, with the sizes of their journals as the listing saw them:
// a push passes over a session none of whose journals changed size
// without opening any of its files, so its cost grows with what changed,
// not with how many sessions there are.
func ListSessions(fsys vfs.FS, ws, dir string) ([]SessionRef, error) {
	ents, err := fsys.ReadDir(path.Join(ws, "sessions"))
	if err != nil {
		return nil, err
	}
	tasks := map[string]bool{}
	if names, err := vfs.ReadDirNames(fsys, path.Join(ws, "tasks")); err == nil {
		for _, n := range names {
			tasks[n] = true
		}
	}
	var out []SessionRef
	byID := map[string]int{}
	unknown := map[int]bool{}
	held := map[string]bool{}
	for _, e := range ents {
		id, file, ok := strings.Cut(e.Name(), ".")
		if !ok || !validID(id) || !e.Type().IsRegular() {
			continue
		}
		if "."+file == layout.LockSuffix {
			// A writer's lock holds its pid; a free one is empty.
			if info, err := e.Info(); err != nil || info.Size() > 0 {
				held[id] = true
			}
			continue
		}
		switch file {
		case FileItems, FileChanges, FileAudit, FileShell:
		default:
			continue
		}
		i, seen := byID[id]
		if !seen {
			i = len(out)
			byID[id] = i
			out = append(out, SessionRef{ID: id, WS: ws, Path: dir, Sizes: map[string]int64{}, Tasks: tasks[id]})
		}
		if info, err := e.Info(); err == nil {
			out[i].Sizes[file] = info.Size()
		} else {
			unknown[i] = true
		}
	}
	for i := range unknown {
		out[i].Sizes = nil // not known: the push opens its files
	}
	for i := range out {
		out[i].Held = held[out[i].ID]
	}
	// A session is saved once its items journal exists.
	kept := out[:0]
	for _, r := range out {
		if _, ok := r.Sizes[FileItems]; ok || r.Sizes == nil && fileExists(fsys, LocalName(ws, r.ID, FileItems)) {
			kept = append(kept, r)
		}
	}
	return kept, nil
}

func fileExists(fsys vfs.FS, name string) bool {
	_, err := fsys.Stat(name)
	return err == nil
}
