package importer

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/klauspost/compress/zstd"

	"cairn/engine"
	"cairn/internal/usermsg"
)

// Files lists the source files of agent under roots: each root is a file,
// or a folder searched for them. For Claude Code a folder holding
// "projects" (the config folder) is searched there; sub-agent transcripts
// (<session>/subagents/, and the agent-*.jsonl files older versions kept
// beside sessions) are not sessions and are left out. For Codex a folder
// holding "sessions" is searched there and in "archived_sessions"; of a
// rollout kept both plain and compressed, the plain file is read.
func Files(agent string, roots []string) ([]string, error) {
	var out []string
	for _, root := range roots {
		fi, err := os.Stat(root)
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("no such source: %s", root)
		}
		if err != nil {
			return nil, fmt.Errorf("source %s: %v", root, errors.Unwrap(err))
		}
		if !fi.IsDir() {
			if agent == AgentClaudeCode && strings.HasPrefix(filepath.Base(root), "agent-") {
				// A sub-agent transcript is read with its session.
				if parent := subagentParent(root); parent != "" {
					root = parent
				}
			}
			out = append(out, root)
			continue
		}
		var dirs []string
		switch agent {
		case AgentClaudeCode:
			dirs = []string{root}
			if isDir(filepath.Join(root, "projects")) {
				dirs = []string{filepath.Join(root, "projects")}
			}
		case AgentCodex:
			dirs = []string{root}
			if isDir(filepath.Join(root, "sessions")) {
				dirs = []string{filepath.Join(root, "sessions")}
				if a := filepath.Join(root, "archived_sessions"); isDir(a) {
					dirs = append(dirs, a)
				}
			}
		default:
			return nil, fmt.Errorf("unknown agent %q", agent)
		}
		for _, d := range dirs {
			err := filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				if e.IsDir() {
					if agent == AgentClaudeCode && e.Name() == "subagents" {
						return filepath.SkipDir
					}
					return nil
				}
				if !e.Type().IsRegular() {
					return nil
				}
				name := e.Name()
				switch agent {
				case AgentClaudeCode:
					if strings.HasSuffix(name, ".jsonl") && !strings.HasPrefix(name, "agent-") {
						out = append(out, p)
					}
				case AgentCodex:
					if strings.HasPrefix(name, "rollout-") && strings.HasSuffix(name, ".jsonl") {
						out = append(out, p)
					}
					if strings.HasPrefix(name, "rollout-") && strings.HasSuffix(name, ".jsonl.zst") {
						if _, err := os.Stat(strings.TrimSuffix(p, ".zst")); err != nil {
							out = append(out, p)
						}
					}
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// SubagentFiles lists the sub-agent transcripts Claude Code keeps for the
// session file path, whose session id is id: <session>/subagents/agent-*.jsonl,
// and, from versions before 2.1, agent-*.jsonl beside the session file
// whose lines name the session.
func SubagentFiles(path, id string) []string {
	m, _ := filepath.Glob(filepath.Join(strings.TrimSuffix(path, ".jsonl"), "subagents", "agent-*.jsonl"))
	old, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "agent-*.jsonl"))
	for _, f := range old {
		if id != "" && firstSessionID(f) == id {
			m = append(m, f)
		}
	}
	return m
}

// subagentParent is the session file beside the sub-agent transcript f
// (older versions' layout) that its lines name, or "".
func subagentParent(f string) string {
	id := firstSessionID(f)
	if id == "" || strings.ContainsAny(id, `/\`) {
		return ""
	}
	p := filepath.Join(filepath.Dir(f), id+".jsonl")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// firstSessionID is the sessionId of the first line of f that names one.
func firstSessionID(f string) string {
	fh, err := os.Open(f)
	if err != nil {
		return ""
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(nil, 16<<20)
	for n := 0; n < 16 && sc.Scan(); n++ {
		var l struct {
			SessionID string `json:"sessionId"`
		}
		if json.Unmarshal(sc.Bytes(), &l) == nil && l.SessionID != "" {
			return l.SessionID
		}
	}
	return ""
}

// Options are an import run's.
type Options struct {
	DryRun bool
	// Progress, when set, is told the bytes read so far and in all.
	Progress func(done, total int64)
}

// SessionReport is what one source file came to.
type SessionReport struct {
	File            string `json:"file"`
	Source          string `json:"source,omitempty"`
	Dir             string `json:"dir,omitempty"`
	Session         string `json:"session,omitempty"`
	Created         bool   `json:"created"`
	Unchanged       bool   `json:"unchanged"`
	Items           int    `json:"items"`    // added
	Present         int    `json:"present"`  // already there
	UnlinkedResults int    `json:"unlinked"` // tool results whose call is not on their path, kept without the link
	// Tasks is the sub-agent transcripts brought in as tasks of the
	// session (TaskItems their items added); Unlinked those no call of the
	// session names (an automatic compaction's agent), left out.
	Tasks     int    `json:"tasks"`
	TaskItems int    `json:"task_items"`
	Unlinked  int    `json:"unlinked_subagents"`
	Stats     Stats  `json:"stats"`
	Error     string `json:"error,omitempty"`
}

// Report is a whole run's.
type Report struct {
	Agent     string          `json:"agent"`
	DryRun    bool            `json:"dry_run"`
	Sessions  []SessionReport `json:"sessions"`
	Created   int             `json:"created"`
	Updated   int             `json:"updated"`
	Unchanged int             `json:"unchanged"`
	Failed    int             `json:"failed"`
	Items     int             `json:"items"`
	Tasks     int             `json:"tasks"`
	TaskItems int             `json:"task_items"`
	Unlinked  int             `json:"unlinked_subagents"`
	Totals    Stats           `json:"totals"`
}

// Run imports files of agent into store. A file that cannot be read or
// imported is reported and the run goes on; the error is for the run as a
// whole (a cancelled context).
func Run(ctx context.Context, store *engine.Store, agent string, files []string, opts Options) (*Report, error) {
	rep := &Report{Agent: agent, DryRun: opts.DryRun, Sessions: []SessionReport{}, Totals: newStats()}
	var total, done int64
	sizes := make([]int64, len(files)) // for Progress: stat each file once
	for i, f := range files {
		if fi, err := os.Stat(f); err == nil {
			sizes[i] = fi.Size()
			total += sizes[i]
		}
	}
	// Files are parsed ahead by as many goroutines as there are cores, at
	// most that many parsed and waiting (each holds its items in memory);
	// the engine writes them one at a time, in order, so two sources of
	// one session never race.
	n := runtime.GOMAXPROCS(0)
	results := make([]chan parsedFile, len(files))
	for i := range results {
		results[i] = make(chan parsedFile, 1)
	}
	slots := make(chan struct{}, n)
	go func() {
		for i, f := range files {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			go func() { results[i] <- parseFile(agent, f) }()
		}
	}()
	for i := range files {
		var pf parsedFile
		select {
		case pf = <-results[i]:
		case <-ctx.Done():
			return rep, ctx.Err()
		}
		<-slots
		sr := bringIn(ctx, store, agent, pf, opts.DryRun)
		rep.Sessions = append(rep.Sessions, sr)
		rep.Totals.Add(sr.Stats)
		rep.Items += sr.Items
		rep.Tasks += sr.Tasks
		rep.TaskItems += sr.TaskItems
		rep.Unlinked += sr.Unlinked
		switch {
		case sr.Error != "":
			rep.Failed++
		case sr.Unchanged:
			rep.Unchanged++
		case sr.Created:
			rep.Created++
		default:
			rep.Updated++
		}
		done += sizes[i]
		if opts.Progress != nil {
			opts.Progress(done, total)
		}
	}
	return rep, nil
}

// parsedFile is a source file parsed: its report so far, and its source
// (nil when the parse failed; the report says why).
type parsedFile struct {
	sr  SessionReport
	src *engine.ImportSource
}

// parseFile reads and parses one source file.
func parseFile(agent, file string) (pf parsedFile) {
	sr := &pf.sr
	sr.File = file
	fail := func(err error) parsedFile {
		sr.Error = usermsg.Error(err) // the words the user reads, as stderr's
		return pf
	}
	f, err := os.Open(file)
	if err != nil {
		return fail(err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(file, ".zst") {
		d, err := zstd.NewReader(f)
		if err != nil {
			return fail(err)
		}
		defer d.Close()
		r = d
	}
	var src *engine.ImportSource
	switch agent {
	case AgentClaudeCode:
		if strings.HasPrefix(filepath.Base(file), "agent-") && !strings.HasSuffix(file, ".zst") {
			// Its session's file is not beside it (Files finds it when it is).
			return fail(fmt.Errorf("%s is a sub-agent's transcript: it is imported with its session's file", filepath.Base(file)))
		}
		var p *ccParse
		if p, err = parseClaudeCode(r, file, nil, -1); err == nil {
			src, sr.Stats = &p.src, p.stats
			err = p.subagents(file, sr)
		}
	case AgentCodex:
		src, sr.Stats, err = Codex(r, file)
	default:
		err = fmt.Errorf("unknown agent %q", agent)
	}
	if err != nil {
		return fail(err)
	}
	pf.src = src
	return pf
}

// bringIn imports a parsed source into its session.
func bringIn(ctx context.Context, store *engine.Store, agent string, pf parsedFile, dry bool) (sr SessionReport) {
	sr, src := pf.sr, pf.src
	if src == nil {
		return sr
	}
	fail := func(err error) SessionReport {
		sr.Error = usermsg.Error(err) // the words the user reads, as stderr's
		return sr
	}
	sr.Source, sr.Dir = src.SourceID, src.Dir
	if src.Dir == "" {
		if len(src.Items) == 0 {
			sr.Unchanged = true // nothing to bring in, and nowhere to put it
			return sr
		}
		return fail(errors.New("the source names no working directory"))
	}
	ws, err := store.ImportWorkspaceFor(ctx, agent, src.SourceID, src.Dir)
	if err != nil {
		return fail(err)
	}
	sr.Dir = ws.Path() // as the workspace is kept: cleaned, not as the source wrote it
	off, exists, err := ws.ImportOffset(ctx, agent, src.SourceID)
	if err != nil {
		return fail(err)
	}
	if exists && off == src.Offset {
		sr.Session, sr.Unchanged, sr.Present = engine.ImportSessionID(agent, src.SourceID), true, len(src.Items)
		return sr
	}
	src.DryRun = dry
	res, err := ws.Import(ctx, src)
	if err != nil {
		return fail(err)
	}
	sr.Session, sr.Created, sr.Items, sr.Present, sr.UnlinkedResults = res.Session, res.Created, res.Items, res.Present, res.Unlinked
	sr.Tasks, sr.TaskItems = res.Tasks, res.TaskItems
	if !exists && res.Items == 0 {
		sr.Session, sr.Unchanged = "", true
	}
	return sr
}

// subagents reads the sub-agent transcripts of the session file path into
// p's source as tasks; their lines are accounted for in sr.Stats too.
func (p *ccParse) subagents(path string, sr *SessionReport) error {
	for _, f := range SubagentFiles(path, p.src.SourceID) {
		fh, err := os.Open(f)
		if err != nil {
			return err
		}
		t, st, ok, err := p.subagent(fh, f)
		fh.Close()
		if err != nil {
			return err
		}
		// What the import read of the session counts its sub-agents' too:
		// one that grew makes the next import look again.
		if fi, err := os.Stat(f); err == nil {
			p.src.Offset += fi.Size() - st.Torn
		}
		sr.Stats.Add(st)
		if !ok {
			sr.Unlinked++
			continue
		}
		p.src.Tasks = append(p.src.Tasks, t)
	}
	return nil
}
