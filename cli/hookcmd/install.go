package hookcmd

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/google/renameio/v2"

	"cairn/cli/cmdbase"
	"cairn/engine"
	"cairn/importer"
)

// `cairn hook install` and `cairn hook uninstall`: cairn's hook entries
// merged into (and taken out of) an agent's settings file. Everything else
// in the file stays as it is: its keys in their order, the other hooks,
// numbers as spelled. A file that is not a JSON object is refused and left
// alone. The file is replaced atomically (a temp file renamed over it), at
// the target of a symbolic link when it is one.

// HookInstallCmd is `cairn hook install claude-code|codex`.
type HookInstallCmd struct {
	Agent   string `arg:"" enum:"claude-code,codex" help:"The agent: claude-code or codex."`
	Project bool   `name:"project" xor:"scope" help:"This project's settings (the default): .claude/settings.local.json, or .codex/hooks.json."`
	User    bool   `name:"user" xor:"scope" help:"Your settings for every project: ~/.claude/settings.json ($CLAUDE_CONFIG_DIR), or ~/.codex/hooks.json ($CODEX_HOME)."`
	Command string `name:"command" placeholder:"CMD" help:"The cairn command the entries run (default: this program's absolute path)."`
}

// HookUninstallCmd is `cairn hook uninstall claude-code|codex`.
type HookUninstallCmd struct {
	Agent   string `arg:"" enum:"claude-code,codex" help:"The agent: claude-code or codex."`
	Project bool   `name:"project" xor:"scope" help:"This project's settings (the default)."`
	User    bool   `name:"user" xor:"scope" help:"Your settings for every project."`
}

// hookEntry is one event cairn hooks into: its matcher ("" = none) and
// the handler's timeout in seconds.
type hookEntry struct {
	event, matcher string
	timeout        int
}

// hookEntries are the events cairn needs from each agent: the file tools
// and the shell (Bash, in both agents' hooks). MultiEdit stays for older
// Claude Code versions; Codex names its edits apply_patch (Write and Edit
// are its matcher aliases for it). An install made before Bash was
// recorded is replaced by the next install.
func hookEntries(agent string) []hookEntry {
	tools := "Write|Edit|MultiEdit|NotebookEdit|Bash"
	if agent == importer.AgentCodex {
		tools = "apply_patch|Write|Edit|Bash"
	}
	es := []hookEntry{
		{"PreToolUse", tools, 30},
		{"PostToolUse", tools, 30},
	}
	if agent != importer.AgentCodex {
		// A tool that failed fires this instead of PostToolUse: what it
		// wrote before failing is still recorded.
		es = append(es, hookEntry{"PostToolUseFailure", tools, 30})
	}
	return append(es, hookEntry{"UserPromptSubmit", "", 30}, hookEntry{"Stop", "", 30}, hookEntry{"SessionEnd", "", 10})
}

// hookEvents are the events of hookEntries(agent).
func hookEvents(agent string) []string {
	var evs []string
	for _, e := range hookEntries(agent) {
		evs = append(evs, e.event)
	}
	return evs
}

// noteHookKept is how install brings the note of the settings file name
// up to date (install_kept.go): read against root before cairn's
// entries go in, written once the merge is known to change the file. A
// state folder that cannot be opened matters only when there is
// something to note.
func noteHookKept(g *cmdbase.Globals, name string, root *jObj, agent string) func() error {
	key := hookKeptKey(name)
	st, err := g.Open()
	if err != nil {
		if len(hookKeptAt(root, hookEvents(agent), nil)) == 0 {
			return func() error { return nil }
		}
		return func() error { return err }
	}
	kept := hookKeptAt(root, hookEvents(agent), st.HookKept(key))
	return func() error { return st.SetHookKept(key, kept) }
}

// hookSettingsPath is the settings file of agent in the scope asked for.
func hookSettingsPath(g *cmdbase.Globals, agent string, user bool) (string, error) {
	if user {
		h, err := AgentHome(agent)
		if err != nil {
			return "", err
		}
		if agent == importer.AgentCodex {
			return filepath.Join(h, "hooks.json"), nil
		}
		return filepath.Join(h, "settings.json"), nil
	}
	dir, err := g.Dir()
	if err != nil {
		return "", err
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return "", err
	}
	if agent == importer.AgentCodex {
		return filepath.Join(dir, ".codex", "hooks.json"), nil
	}
	return filepath.Join(dir, ".claude", "settings.local.json"), nil
}

// isCairnHook reports whether handler h is cairn's for agent: a command
// ending in "hook <agent>", or the hook program's "cairn-hook <agent>"
// (its path quoted or not).
func isCairnHook(h any, agent string) bool {
	o, ok := h.(*jObj)
	if !ok {
		return false
	}
	c, ok := o.get("command").(jRaw)
	if !ok || c.lit != "" {
		return false
	}
	cmd := strings.TrimSpace(c.str)
	for _, end := range []string{" hook " + agent, "/" + hookProgram + " " + agent, "/" + hookProgram + "' " + agent} {
		if strings.HasSuffix(cmd, end) || cmd == hookProgram+" "+agent {
			return true
		}
	}
	return false
}

// readSettings reads the settings file name: its root object, or a new one
// when the file does not exist, and its permission bits.
func readSettings(name string) (*jObj, fs.FileMode, bool, error) {
	b, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return newObj(), 0o600, false, nil
	}
	if err != nil {
		return nil, 0, false, err
	}
	perm := fs.FileMode(0o600)
	if fi, err := os.Stat(name); err == nil {
		perm = fi.Mode().Perm()
	}
	if len(strings.TrimSpace(string(b))) == 0 {
		return newObj(), perm, true, nil
	}
	v, err := parseJSONOrdered(b)
	if err != nil {
		return nil, 0, false, cmdbase.UsageErrorf("%s is not valid JSON (%v); nothing was changed", name, err)
	}
	root, ok := v.(*jObj)
	if !ok {
		return nil, 0, false, cmdbase.UsageErrorf("%s does not hold a JSON object; nothing was changed", name)
	}
	if h := root.get("hooks"); h != nil {
		hooks, ok := h.(*jObj)
		if !ok {
			return nil, 0, false, cmdbase.UsageErrorf("%s: its \"hooks\" is not an object; nothing was changed", name)
		}
		// An event's entry is a list of matcher groups: anything else is the
		// user's to fix, never cairn's to replace.
		for _, ev := range hooks.keys {
			if _, ok := hooks.get(ev).([]any); !ok {
				return nil, 0, false, cmdbase.UsageErrorf("%s: its \"hooks\".%q is not a list of matcher groups; nothing was changed", name, ev)
			}
		}
	}
	return root, perm, true, nil
}

// writeSettings replaces name by root atomically, keeping perm.
func writeSettings(name string, root *jObj, perm fs.FileMode) error {
	if t, err := filepath.EvalSymlinks(name); err == nil {
		name = t
	}
	dir := filepath.Dir(name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// The agent's settings file is no file of the state folder: renameio
	// writes a temporary file beside it, syncs it and renames it over the
	// old one, with exactly perm. The folder is synced after, so that the
	// rename itself survives a crash.
	if err := renameio.WriteFile(name, writeJSONOrdered(root), perm, renameio.WithStaticPermissions(perm)); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

func (c *HookInstallCmd) Run(g *cmdbase.Globals) error {
	name, err := hookSettingsPath(g, c.Agent, c.User)
	if err != nil {
		return err
	}
	root, perm, _, err := readSettings(name)
	if err != nil {
		return err
	}
	command, program, cloud := c.Command+" hook "+c.Agent, "", ""
	if c.Command == "" {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("cannot find this program's path (give --command): %w", err)
		}
		command, program = hookCommand(exe, c.Agent)
		if program != "" && filepath.Base(exe) != hookProgram {
			if r, ok := cloudRemote(g); ok {
				command, program = quoteArg(exe)+" hook "+c.Agent, ""
				cloud = r.Name
			}
		}
	}
	noteKept := noteHookKept(g, name, root, c.Agent)
	hooks, _ := root.get("hooks").(*jObj)
	if hooks == nil {
		hooks = newObj()
	}
	var said []string
	for _, e := range hookEntries(c.Agent) {
		what := e.event
		if e.matcher != "" {
			what += " (" + e.matcher + ")"
		}
		groups, _ := hooks.get(e.event).([]any)
		if hasHookGroup(groups, e, command) {
			said = append(said, "kept "+what)
			continue
		}
		groups, removed := removeCairnHooks(groups, c.Agent)
		groups = append(groups, newHookGroup(e, command))
		hooks.set(e.event, groups)
		if removed > 0 {
			said = append(said, "replaced "+what)
		} else {
			said = append(said, "added "+what)
		}
	}
	changed := false
	for _, s := range said {
		changed = changed || !strings.HasPrefix(s, "kept ")
	}
	if changed {
		// The user's empty containers, noted before the file changes, so
		// that uninstall leaves them (install_kept.go).
		if err := noteKept(); err != nil {
			return fmt.Errorf("%s: cannot note its empty hook lists in the state folder (%v); nothing was changed", name, err)
		}
		root.set("hooks", hooks)
		if err := writeSettings(name, root, perm); err != nil {
			return err
		}
	}
	if err := sayHooks(g, name, changed, said, c.Agent); err != nil || g.JSON {
		return err
	}
	if program != "" {
		fmt.Fprintf(g.Stdout, "The hooks run %s, the hook program beside this cairn: it starts faster than cairn hook.\n", program)
	} else if cloud != "" {
		fmt.Fprintf(g.Stdout, "The hooks run cairn hook, not %s: the sessions' leases are kept on remote %s, which only cairn can check (%s would hand every event to it).\n", hookProgram, cloud, hookProgram)
	} else if c.Command == "" {
		fmt.Fprintf(g.Stdout, "The hooks run cairn hook: no %s beside this cairn (go install ./cmd/... puts it there; it starts faster).\n", hookProgram)
	}
	return nil
}

// hookProgram is the hook program's name (cmd/cairn-hook): cairn hook
// without the cloud remotes' libraries, which start-up pays for.
const hookProgram = "cairn-hook"

// cloudRemote is the state folder's default remote when it is not a
// folder (file://): the hook program links no cloud remote, so it would
// hand every event to the cairn command to check a session's lease there,
// two programs started per tool call.
func cloudRemote(g *cmdbase.Globals) (engine.Remote, bool) {
	st, err := g.Open()
	if err != nil {
		return engine.Remote{}, false
	}
	rs, err := st.Remotes()
	if err != nil || len(rs) == 0 {
		return engine.Remote{}, false
	}
	if u, err := url.Parse(rs[0].URL); err == nil && u.Scheme == "file" {
		return engine.Remote{}, false
	}
	return rs[0], true
}

// hookCommand is the command a hook entry runs when the running cairn is
// exe: the hook program, when exe is it or it sits beside exe (program is
// then its path), else `exe hook AGENT`.
func hookCommand(exe, agent string) (command, program string) {
	if filepath.Base(exe) == hookProgram {
		return quoteArg(exe) + " " + agent, exe
	}
	p := filepath.Join(filepath.Dir(exe), hookProgram)
	if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
		return quoteArg(p) + " " + agent, p
	}
	return quoteArg(exe) + " hook " + agent, ""
}

func (c *HookUninstallCmd) Run(g *cmdbase.Globals) error {
	name, err := hookSettingsPath(g, c.Agent, c.User)
	if err != nil {
		return err
	}
	root, perm, exists, err := readSettings(name)
	if err != nil {
		return err
	}
	hooks, _ := root.get("hooks").(*jObj)
	var said []string
	var kept []string
	forget := func() {}
	if exists && hooks != nil {
		// The containers the user had empty before install stay
		// (install_kept.go); a state folder that cannot be opened
		// keeps none. Once the file is written the note has served; one
		// left behind (it could not be removed) is brought up to date by
		// the next install.
		if st, err := g.Open(); err == nil {
			kept = st.HookKept(hookKeptKey(name))
			forget = func() { st.SetHookKept(hookKeptKey(name), nil) }
		}
		for _, ev := range append([]string(nil), hooks.keys...) {
			groups, ok := hooks.get(ev).([]any)
			if !ok {
				continue
			}
			left, removed := removeCairnHooks(groups, c.Agent)
			if removed == 0 {
				continue
			}
			said = append(said, "removed "+ev)
			if len(left) == 0 && !slices.Contains(kept, "hooks."+ev) {
				hooks.del(ev)
			} else {
				hooks.set(ev, left)
			}
		}
		if len(said) > 0 && len(hooks.keys) == 0 && !slices.Contains(kept, "hooks") {
			root.del("hooks")
		}
	}
	if len(said) > 0 {
		if err := writeSettings(name, root, perm); err != nil {
			return err
		}
		forget()
	}
	return sayHooks(g, name, len(said) > 0, said, c.Agent)
}

// sayHooks tells what an install or uninstall did to the file name.
func sayHooks(g *cmdbase.Globals, name string, changed bool, said []string, agent string) error {
	if g.JSON {
		if said == nil {
			said = []string{}
		}
		return g.PrintJSON(struct {
			File    string   `json:"file"`
			Changed bool     `json:"changed"`
			Entries []string `json:"entries"`
		}{name, changed, said})
	}
	if !changed {
		if len(said) == 0 {
			fmt.Fprintf(g.Stdout, "%s: no cairn hooks for %s; nothing changed\n", name, agent)
		} else {
			fmt.Fprintf(g.Stdout, "%s: cairn's hooks for %s are already in; nothing changed\n", name, agent)
		}
		return nil
	}
	fmt.Fprintf(g.Stdout, "%s:\n", name)
	for _, s := range said {
		fmt.Fprintf(g.Stdout, "  %s\n", s)
	}
	if agent == importer.AgentCodex && strings.HasPrefix(said[0], "added") {
		fmt.Fprintln(g.Stdout, "Codex runs hooks only once trusted: review them with /hooks in Codex.")
	}
	return nil
}

// hasHookGroup reports whether groups hold cairn's handler for e exactly:
// in a group of e's matcher, with command and e's timeout.
func hasHookGroup(groups []any, e hookEntry, command string) bool {
	for _, gr := range groups {
		o, ok := gr.(*jObj)
		if !ok {
			continue
		}
		m, _ := o.get("matcher").(jRaw)
		if m.str != e.matcher || m.lit != "" {
			continue
		}
		hs, _ := o.get("hooks").([]any)
		for _, h := range hs {
			ho, ok := h.(*jObj)
			if !ok {
				continue
			}
			c, _ := ho.get("command").(jRaw)
			t, _ := ho.get("timeout").(jRaw)
			if c.str == command && t.lit == fmt.Sprint(e.timeout) {
				return true
			}
		}
	}
	return false
}

// removeCairnHooks takes agent's cairn handlers out of groups; a group left
// with no handler goes too.
func removeCairnHooks(groups []any, agent string) ([]any, int) {
	var out []any
	n := 0
	for _, gr := range groups {
		o, ok := gr.(*jObj)
		if !ok {
			out = append(out, gr)
			continue
		}
		hs, ok := o.get("hooks").([]any)
		if !ok {
			out = append(out, gr)
			continue
		}
		var keep []any
		for _, h := range hs {
			if isCairnHook(h, agent) {
				n++
			} else {
				keep = append(keep, h)
			}
		}
		switch {
		case len(keep) == len(hs):
			out = append(out, gr)
		case len(keep) > 0:
			o.set("hooks", keep)
			out = append(out, gr)
		}
	}
	return out, n
}

// newHookGroup is the matcher group of cairn's handler for e.
func newHookGroup(e hookEntry, command string) *jObj {
	h := newObj()
	h.set("type", jStr("command"))
	h.set("command", jStr(command))
	h.set("timeout", jRaw{lit: fmt.Sprint(e.timeout)})
	gr := newObj()
	if e.matcher != "" {
		gr.set("matcher", jStr(e.matcher))
	}
	gr.set("hooks", []any{h})
	return gr
}

// quoteArg quotes s for sh -c when it needs it (cmdbase.ShellQuote).
func quoteArg(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == '+' || r == ':' ||
			r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) < 0 {
		return s
	}
	return cmdbase.ShellQuote(s)
}
