package config

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"cairn/engine/internal/changes"
	"cairn/engine/internal/errs"
	"cairn/engine/internal/execpolicy"
	"cairn/engine/internal/layout"
	"cairn/engine/retention"
	"cairn/internal/vfs"
)

// Config is the parsed config.json.
type Config struct {
	Snapshots SnapshotsConfig
	Storage   StorageConfig
	History   HistoryConfig
	Tools     ToolsConfig
	// Agent is how task and shell calls run (engine/internal/execpolicy).
	Agent AgentConfig
	// Experimental switches features that are not settled yet.
	Experimental ExperimentalConfig
}

// ExperimentalConfig is the "experimental" section.
type ExperimentalConfig struct {
	// CrossSessionMessaging lets live sessions and scripts message a live
	// session (engine/internal/inbox).
	CrossSessionMessaging bool
	// RemoteWorkcell lets a session work on a remote workspace over ssh
	// (cairn --ssh): without it such a session neither starts nor
	// resumes, and never falls back to this machine's files.
	RemoteWorkcell bool
}

// AgentConfig is the "agent" section: when a task or shell call waits and
// when it is answered with a receipt.
type AgentConfig struct {
	TaskExecution           execpolicy.Mode
	ShellExecution          execpolicy.Mode
	ShellAsyncThresholdSecs int
	// BackgroundReminderTurns is how often, in turns, the session gets a
	// reminder of its running background work (engine/internal/bgwork,
	// reminder.go); 0, the default, turns the periodic reminder off.
	BackgroundReminderTurns int
}

// MaxReminderTurns bounds agent.background_reminder_turns.
const MaxReminderTurns = 10000

// Policy is the section as an execpolicy.Policy.
func (a AgentConfig) Policy() execpolicy.Policy {
	return execpolicy.Policy{Task: a.TaskExecution, Shell: a.ShellExecution, ThresholdSecs: a.ShellAsyncThresholdSecs}
}

// TaskCall decides a task call under the section in use u; background is
// the call's background argument. A refusal wraps errs.ErrRefused (the
// policy withholds it), a malformed section errs.ErrBadInput.
func (a AgentConfig) TaskCall(u execpolicy.Use, background bool) (execpolicy.Decision, error) {
	d, err := a.Policy().TaskCall(u, background)
	return d, execError(err)
}

// ShellCall decides a shell call asking for timeoutSecs under the section
// in use u. The decision's Deadline is always the requested timeout.
func (a AgentConfig) ShellCall(u execpolicy.Use, timeoutSecs int) (execpolicy.Decision, error) {
	d, err := a.Policy().ShellCall(u, timeoutSecs)
	return d, execError(err)
}

// Promote refuses the promotion of a running task to the background
// unless the section's task mode, in use u, is auto.
func (a AgentConfig) Promote(u execpolicy.Use) error { return execError(a.Policy().Promote(u)) }

// execError is err of execpolicy as the engine's errors.
func execError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, execpolicy.ErrBadMode), errors.Is(err, execpolicy.ErrBadTimeout):
		return fmt.Errorf("%w: %w", errs.ErrBadInput, err)
	}
	return errs.Refusedf("%w", err)
}

// ToolsConfig is the "tools" section: what the file tools (write, edit,
// rm, apply_patch) may write.
type ToolsConfig struct {
	// WriteVCSFolders lets them write inside a repository's .git, .jj or
	// .hg folder, which they refuse by default: git runs the hooks and the
	// commands of the config it finds there (engine/internal/tools/path.go).
	WriteVCSFolders bool
}

// SnapshotsConfig is the "snapshots" section: the undo stack of file tools.
type SnapshotsConfig struct {
	Enabled            bool
	MaxPerSession      int
	MaxBytesPerSession int64
	MaxFileBytes       int64
	// Required: every edit (All), or edits of files matching Globs
	// (workspace-relative or absolute doublestar globs, glob.go), must have
	// their pre-image captured.
	RequiredAll   bool
	RequiredGlobs []string
}

// StorageConfig is the "storage" section.
type StorageConfig struct {
	Ephemeral      bool
	MaxEagerLoadMB int
	// MaxAttachmentMB caps one attachment's bytes (attach.go).
	MaxAttachmentMB int
	// Recording limits of whole-directory change records.
	RecordingEnabled bool
	MaxBytesMB       int
	MaxFiles         int
	MaxFileBytesMB   int
	// Retention policies, in restic's vocabulary; empty keeps everything.
	Trim, Forget retention.Policy
	// GroupBy is "directory" (each workspace's sessions are a group of
	// their own) or "none" (one group over the whole state folder).
	GroupBy string
	// SweepIntervalHours is how often an open REPL runs the sweep; 0 runs
	// retention only from the CLI.
	SweepIntervalHours int
}

// HistoryConfig is the "history" section.
type HistoryConfig struct{ Max int }

// DefaultHistoryMax is history.max's default.
const DefaultHistoryMax = 1000

// DefaultMaxAttachmentMB is storage.max_attachment_mb's default.
const DefaultMaxAttachmentMB = 32

// Default is the configuration with no config.json.
func Default() Config {
	agent := execpolicy.Default()
	return Config{
		Snapshots: SnapshotsConfig{Enabled: true, MaxPerSession: 50, MaxBytesPerSession: 64 << 20, MaxFileBytes: 2 << 20},
		Storage: StorageConfig{MaxEagerLoadMB: 1024, MaxAttachmentMB: DefaultMaxAttachmentMB, RecordingEnabled: true, MaxBytesMB: MaxRecordBytesMB, MaxFiles: MaxRecordFiles,
			MaxFileBytesMB: MaxRecordFileBytesMB, GroupBy: "directory", SweepIntervalHours: 24},
		History: HistoryConfig{Max: DefaultHistoryMax},
		Agent: AgentConfig{TaskExecution: agent.Task, ShellExecution: agent.Shell,
			ShellAsyncThresholdSecs: agent.ThresholdSecs},
	}
}

// The most the local change store accepts of each recording limit (seed
// "Limits"): a larger value in config.json is lowered to it.
const (
	MaxRecordBytesMB     = 512
	MaxRecordFiles       = 50000
	MaxRecordFileBytesMB = 100
)

// Limits is the undo stack's limits under c.
func (c SnapshotsConfig) Limits() changes.Limits {
	return changes.Limits{MaxPerSession: c.MaxPerSession, MaxBytes: c.MaxBytesPerSession}
}

// Load reads config.json from the top of fsys; a missing file gives the
// defaults.
func Load(fsys vfs.FS) (Config, error) {
	b, err := vfs.ReadFile(fsys, layout.Config)
	if vfs.IsNotExist(err) {
		return Default(), nil
	}
	if err != nil {
		return Config{}, fmt.Errorf("engine: read config.json: %w", err)
	}
	return Parse(b)
}

// Cache is config.json as a session read it: once, at its first use, and
// again when it is set. A config that could not be read is not kept, so
// the next Get reads it again.
//
// Lock: mu, a leaf held only while the file is read, guards cfg.
type Cache struct {
	mu  sync.Mutex
	cfg *Config
}

// Get returns the cached config, reading it with load the first time.
func (c *Cache) Get(load func() (Config, error)) (Config, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cfg != nil {
		return *c.cfg, nil
	}
	cfg, err := load()
	if err != nil {
		return Config{}, err
	}
	c.cfg = &cfg
	return cfg, nil
}

// Set replaces the cached config.
func (c *Cache) Set(cfg Config) {
	c.mu.Lock()
	c.cfg = &cfg
	c.mu.Unlock()
}

// Requires reports whether snapshots.required covers a file whose
// workspace-relative name is rel and absolute path abs: every file, or a
// glob matching the name (the path, for a glob beginning with "/").
func (c SnapshotsConfig) Requires(rel, abs string) bool {
	if c.RequiredAll {
		return true
	}
	for _, g := range c.RequiredGlobs {
		name := rel
		if strings.HasPrefix(g, "/") {
			name = abs
		}
		if MatchGlob(g, name) {
			return true
		}
	}
	return false
}
