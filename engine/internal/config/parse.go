package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"cairn/engine/internal/errs"
	"cairn/engine/internal/execpolicy"
	"cairn/engine/retention"
)

// Error names the key of config.json that is wrong. It wraps the
// engine's ErrBadInput.
type Error struct {
	Key string
	Msg string
}

func (e *Error) Error() string {
	if e.Key == "" {
		return "config.json: " + e.Msg
	}
	return fmt.Sprintf("config.json: %s: %s", e.Key, e.Msg)
}
func (e *Error) Unwrap() error { return errs.ErrBadInput }

// Parse parses config.json strictly.
func Parse(b []byte) (Config, error) {
	c := Default()
	if len(bytes.TrimSpace(b)) == 0 {
		return c, nil
	}
	top, err := object("", b)
	if err != nil {
		return Config{}, err
	}
	setters := map[string]func(k string, v json.RawMessage) error{
		"snapshots.enabled":               boolInto(&c.Snapshots.Enabled),
		"snapshots.max_per_session":       intInto(&c.Snapshots.MaxPerSession, 1, 1<<20),
		"snapshots.max_bytes_per_session": int64Into(&c.Snapshots.MaxBytesPerSession, 1, 1<<40),
		"snapshots.max_file_bytes":        int64Into(&c.Snapshots.MaxFileBytes, 1, 1<<40),
		"snapshots.required": func(k string, v json.RawMessage) error {
			var all bool
			if json.Unmarshal(v, &all) == nil {
				c.Snapshots.RequiredAll = all
				return nil
			}
			var globs []string
			if err := json.Unmarshal(v, &globs); err != nil {
				return &Error{k, "must be true, false or a list of globs"}
			}
			for i, g := range globs {
				cg, err := CompileGlob(g)
				if err != nil {
					return &Error{k, err.Error()}
				}
				globs[i] = cg
			}
			c.Snapshots.RequiredGlobs = globs
			return nil
		},
		"storage.ephemeral":                   boolInto(&c.Storage.Ephemeral),
		"storage.max_eager_load_mb":           intInto(&c.Storage.MaxEagerLoadMB, 1, 1<<30),
		"storage.max_attachment_mb":           intInto(&c.Storage.MaxAttachmentMB, 1, 1<<10),
		"storage.snapshots.enabled":           boolInto(&c.Storage.RecordingEnabled),
		"storage.snapshots.max_bytes_mb":      intLowered(&c.Storage.MaxBytesMB, MaxRecordBytesMB),
		"storage.snapshots.max_files":         intLowered(&c.Storage.MaxFiles, MaxRecordFiles),
		"storage.snapshots.max_file_bytes_mb": intLowered(&c.Storage.MaxFileBytesMB, MaxRecordFileBytesMB),
		"storage.retention.group_by": func(k string, v json.RawMessage) error {
			var s string
			if json.Unmarshal(v, &s) != nil || (s != "directory" && s != "none") {
				return &Error{k, `must be "directory" or "none"`}
			}
			c.Storage.GroupBy = s
			return nil
		},
		"storage.retention.sweep_interval_hours": intInto(&c.Storage.SweepIntervalHours, 0, 1<<20),
		"storage.retention.trim":                 policyInto(&c.Storage.Trim),
		"storage.retention.forget":               policyInto(&c.Storage.Forget),
		"history.max":                            intInto(&c.History.Max, 1, 1<<20),
		"tools.write_vcs_folders":                boolInto(&c.Tools.WriteVCSFolders),
		"agent.task_execution":                   modeInto(&c.Agent.TaskExecution),
		"agent.shell_execution":                  modeInto(&c.Agent.ShellExecution),
		"agent.shell_async_threshold_secs":       intInto(&c.Agent.ShellAsyncThresholdSecs, 1, execpolicy.MaxSecs),
		"agent.background_reminder_turns":        intInto(&c.Agent.BackgroundReminderTurns, 0, MaxReminderTurns),
		"experimental.cross_session_messaging":   boolInto(&c.Experimental.CrossSessionMessaging),
		"experimental.remote_workcell":           boolInto(&c.Experimental.RemoteWorkcell),
	}
	sections := map[string]bool{"snapshots": true, "storage": true, "storage.snapshots": true, "storage.retention": true, "history": true, "tools": true,
		"agent": true, "experimental": true}
	var walk func(prefix string, m map[string]json.RawMessage) error
	walk = func(prefix string, m map[string]json.RawMessage) error {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			full := k
			if prefix != "" {
				full = prefix + "." + k
			}
			if set, ok := setters[full]; ok {
				if err := set(full, m[k]); err != nil {
					return err
				}
				continue
			}
			if sections[full] {
				sub, err := object(full, m[k])
				if err != nil {
					return err
				}
				if err := walk(full, sub); err != nil {
					return err
				}
				continue
			}
			if sk := snakeCase(k); sk != k {
				if _, ok := setters[strings.TrimPrefix(prefix+"."+sk, ".")]; ok || sections[strings.TrimPrefix(prefix+"."+sk, ".")] {
					return &Error{full, "unknown key (keys are snake_case: " + sk + ")"}
				}
			}
			return &Error{full, "unknown key"}
		}
		return nil
	}
	if err := walk("", top); err != nil {
		return Config{}, err
	}
	return c, nil
}

func object(key string, b []byte) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	d := json.NewDecoder(bytes.NewReader(b))
	if err := d.Decode(&m); err != nil || m == nil {
		return nil, &Error{key, "must be a JSON object"}
	}
	if d.More() {
		return nil, &Error{key, "trailing data after the object"}
	}
	return m, nil
}

func modeInto(p *execpolicy.Mode) func(string, json.RawMessage) error {
	return func(k string, v json.RawMessage) error {
		var s string
		if json.Unmarshal(v, &s) != nil {
			return &Error{k, `must be "sync", "auto" or "async"`}
		}
		m, err := execpolicy.ParseMode(s)
		if err != nil {
			return &Error{k, fmt.Sprintf(`must be "sync", "auto" or "async", not %q`, s)}
		}
		*p = m
		return nil
	}
}

func boolInto(p *bool) func(string, json.RawMessage) error {
	return func(k string, v json.RawMessage) error {
		if err := json.Unmarshal(v, p); err != nil {
			return &Error{k, "must be true or false"}
		}
		return nil
	}
}

func int64Into(p *int64, lo, hi int64) func(string, json.RawMessage) error {
	return func(k string, v json.RawMessage) error {
		var n int64
		if err := json.Unmarshal(v, &n); err != nil {
			return &Error{k, "must be a whole number"}
		}
		if n < lo || n > hi {
			return &Error{k, fmt.Sprintf("must be between %d and %d", lo, hi)}
		}
		*p = n
		return nil
	}
}

func intInto(p *int, lo, hi int) func(string, json.RawMessage) error {
	return func(k string, v json.RawMessage) error {
		var n int64
		if err := int64Into(&n, int64(lo), int64(hi))(k, v); err != nil {
			return err
		}
		*p = int(n)
		return nil
	}
}

// intLowered reads a whole number of at least 1; one above hi is lowered
// to hi (what the store accepts), zero or less is refused.
func intLowered(p *int, hi int) func(string, json.RawMessage) error {
	return func(k string, v json.RawMessage) error {
		var n int64
		if err := int64Into(&n, 1, 1<<62)(k, v); err != nil {
			if json.Unmarshal(v, &n) == nil && n < 1 {
				return &Error{k, "must be at least 1 (zero is not a limit)"}
			}
			return err
		}
		*p = int(min(n, int64(hi)))
		return nil
	}
}

func policyInto(p *retention.Policy) func(string, json.RawMessage) error {
	return func(k string, v json.RawMessage) error {
		m, err := object(k, v)
		if err != nil {
			return err
		}
		names := make([]string, 0, len(m))
		for name := range m {
			names = append(names, name)
		}
		sort.Strings(names)
		var pol retention.Policy
		for _, name := range names {
			key, raw := k+"."+name, m[name]
			switch {
			case !contains(retention.Names(), name):
				return &Error{key, "unknown key (one of " + strings.Join(retention.Names(), ", ") + ")"}
			case retention.IsWithin(name):
				var s string
				if json.Unmarshal(raw, &s) != nil {
					return &Error{key, `must be a duration like "90d" or "2y5m7d3h"`}
				}
				if err := pol.Set(name, s); err != nil {
					return &Error{key, err.Error()}
				}
			default:
				var n int64
				if err := int64Into(&n, -1, 1<<31)(key, raw); err != nil {
					return &Error{key, "must be a count: a whole number, -1 for unlimited"}
				}
				pol.Set(name, strconv.FormatInt(n, 10))
			}
		}
		*p = pol
		return nil
	}
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// snakeCase is k with each capital letter made "_" and its small letter
// (maxPerSession: max_per_session), for the hint an unknown camelCase key
// gets.
func snakeCase(k string) string {
	var b strings.Builder
	for i, r := range k {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}
