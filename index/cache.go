package index

import (
	"errors"
	"strconv"
	"time"

	"cairn/internal/jsonw"
)

// fileName is the index file in the workspace folder; formatVersion is its
// "v". Both are part of the format.
const (
	fileName      = "index.json"
	formatVersion = 1
)

var errCache = errors.New("index: unreadable index.json")

// cache is the content of index.json: entries with the stat key of their
// record, in listing order, and cached problems.
type cache struct {
	entries  []Entry
	stats    []statKey // stats[i] belongs to entries[i]
	problems []Problem
	pstats   []statKey // pstats[i] belongs to problems[i]; zero: not cached

	// counted: the file this was read from gave its number of entries
	// (files of earlier builds did not; Refresh writes such a file again).
	counted bool

	// folder is the sessions folder's stat key when it was listed, at
	// listedNS (wall clock). unrecorded is what that listing found.
	folder     statKey
	listedNS   int64
	unrecorded []string
}

// encode writes c as index.json. Problems with a zero stat key (read errors,
// worth retrying) are left out.
func (c *cache) encode() []byte {
	b := make([]byte, 0, 64+len(c.entries)*320)
	b = append(b, `{"v":1,"count":`...)
	b = strconv.AppendInt(b, int64(len(c.entries)), 10)
	b = append(b, `,"entries":[`...)
	for i := range c.entries {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '\n')
		b = appendEntry(b, &c.entries[i], c.stats[i])
	}
	b = append(b, "\n],\"problems\":["...)
	first := true
	for i, p := range c.problems {
		if c.pstats[i] == (statKey{}) {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, "\n{\"name\":"...)
		b = appendString(b, p.Name)
		b = append(b, `,"err":`...)
		b = appendString(b, p.Err)
		b = appendStat(b, c.pstats[i])
		b = append(b, '}')
	}
	b = append(b, "\n],\"folder\":"...)
	b = appendStatObject(b, c.folder)
	b = append(b, `,"listed_ns":`...)
	b = strconv.AppendInt(b, c.listedNS, 10)
	b = append(b, `,"unrecorded":[`...)
	for i, id := range c.unrecorded {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, id)
	}
	return append(b, "]}\n"...)
}

func appendEntry(b []byte, e *Entry, st statKey) []byte {
	b = append(b, `{"id":`...)
	b = appendString(b, e.ID)
	field := func(name, v string) {
		if v != "" {
			b = append(b, ",\""+name+"\":"...)
			b = appendString(b, v)
		}
	}
	field("title", e.Title)
	field("title_source", e.TitleSource)
	when := func(name string, t time.Time) {
		if !t.IsZero() {
			b = append(b, ",\""+name+"\":\""...)
			b = appendTime(b, t)
			b = append(b, '"')
		}
	}
	when("created_at", e.CreatedAt)
	when("updated_at", e.UpdatedAt)
	when("opened_at", e.OpenedAt)
	if e.Items != 0 {
		b = append(b, `,"items":`...)
		b = strconv.AppendInt(b, int64(e.Items), 10)
	}
	if e.Bytes != 0 {
		b = append(b, `,"bytes":`...)
		b = strconv.AppendInt(b, e.Bytes, 10)
	}
	field("branch", e.Branch)
	field("tier", e.Tier)
	if e.Pinned {
		b = append(b, `,"pinned":true`...)
	}
	field("fork_of", e.ForkOf)
	field("path", e.Path)
	field("remote", e.Remote)
	if e.Journal != 0 {
		b = append(b, `,"journal":`...)
		b = strconv.AppendInt(b, e.Journal, 10)
	}
	b = appendStat(b, st)
	return append(b, '}')
}

func appendStat(b []byte, st statKey) []byte {
	return appendStatObject(append(b, `,"stat":`...), st)
}

func appendStatObject(b []byte, st statKey) []byte {
	b = append(b, `{"size":`...)
	b = strconv.AppendInt(b, st.size, 10)
	b = append(b, `,"mtime_ns":`...)
	b = strconv.AppendInt(b, st.mtime, 10)
	b = append(b, `,"ino":`...)
	b = strconv.AppendUint(b, st.ino, 10)
	return append(b, '}')
}

// appendString appends s as a JSON string.
func appendString(b []byte, s string) []byte { return jsonw.String(b, s) }
