package config

import (
	"cairn/engine/internal/changes"
	"cairn/engine/retention"
)

// Config is the parsed config.json.
type Config struct {
	Snapshots SnapshotsConfig
	Storage   StorageConfig
	History   HistoryConfig
	Tools     ToolsConfig
	// Experimental holds the switches of features still settling.
	Experimental ExperimentalConfig
}

// ExperimentalConfig is the "experimental" section.
type ExperimentalConfig struct {
	// RemoteWorkcell lets a session work on a remote workspace over ssh
	// (cairn --ssh): without it such a session neither starts nor
	// resumes, and never falls back to this machine's files.
	RemoteWorkcell bool
}

// ToolsConfig is the "tools" section: what the file tools (write, edit,
// rm, apply_patch) may write.
type ToolsConfig struct {
	// WriteVCSFolders lets them write inside a repository's .git, .jj or
	// .hg folder, which they refuse by default: git runs the hooks and the
	// commands of the config it finds there (tools_path.go).
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
	return Config{
		Snapshots: SnapshotsConfig{Enabled: true, MaxPerSession: 50, MaxBytesPerSession: 64 << 20, MaxFileBytes: 2 << 20},
		Storage: StorageConfig{MaxEagerLoadMB: 1024, MaxAttachmentMB: DefaultMaxAttachmentMB, RecordingEnabled: true, MaxBytesMB: MaxRecordBytesMB, MaxFiles: MaxRecordFiles,
			MaxFileBytesMB: MaxRecordFileBytesMB, GroupBy: "directory", SweepIntervalHours: 24},
		History: HistoryConfig{Max: DefaultHistoryMax},
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
