package engine

import (
	"cairn/engine/internal/config"
	"cairn/engine/internal/layout"
)

// config.json, at the top of the state folder, is optional and every key has
// a default. Keys are snake_case. An unknown key or a bad value is refused
// with a message that names the key; nothing runs on a config it cannot read.
// Package config parses it; Store.Config is the one loader the engine, the
// command line and the REPL use.

// Config is the parsed config.json (package config says each key).
type Config = config.Config

// The sections of Config the engine's files name.
type (
	SnapshotsConfig = config.SnapshotsConfig
	StorageConfig   = config.StorageConfig
)

// configError names the key of config.json that is wrong (Key, "" for the
// whole file) and what is wrong with it (Msg); it wraps ErrBadInput.
type configError = config.Error

// DefaultMaxAttachmentMB is storage.max_attachment_mb's default.
const DefaultMaxAttachmentMB = config.DefaultMaxAttachmentMB

const (
	configName        = layout.Config
	defaultHistoryMax = config.DefaultHistoryMax
)

// DefaultConfig is the configuration with no config.json.
func DefaultConfig() Config { return config.Default() }

// Config reads config.json; a missing file gives the defaults. An
// ephemeral store reads that of the persistent state folder: only the
// sessions and what they hold are temporary, the configuration is not.
func (s *Store) Config() (Config, error) {
	if s.ledger != nil {
		return s.ledger.Config()
	}
	return config.Load(s.fsys)
}
