// Package config reads config.json, the optional settings file at the top
// of a state folder: one loader for the engine, the command line and the
// REPL (engine.Store.Config reads the file and calls Parse).
//
// # The file
//
// Every key has a default (Default); keys are snake_case, grouped in
// sections. Part of the format:
//
//	{"snapshots":{"enabled":B,"max_per_session":N,"max_bytes_per_session":N,"max_file_bytes":N,
//	              "required":B|[GLOB,...]},
//	 "storage":{"ephemeral":B,"max_eager_load_mb":N,"max_attachment_mb":N,
//	            "snapshots":{"enabled":B,"max_bytes_mb":N,"max_files":N,"max_file_bytes_mb":N},
//	            "retention":{"group_by":"directory"|"none","sweep_interval_hours":N,
//	                         "trim":POLICY,"forget":POLICY}},
//	 "history":{"max":N},
//	 "tools":{"write_vcs_folders":B}}
//
// POLICY is a retention policy in restic's words (package retention). An
// unknown key or a bad value is refused with a *Error that names the key;
// nothing runs on a config it cannot read. A recording limit over what
// the store accepts (MaxRecordBytesMB, MaxRecordFiles,
// MaxRecordFileBytesMB) is lowered to it.
//
// # Globs
//
// snapshots.required's globs are doublestar patterns, checked when the
// file is read (CompileGlob) so that matching (MatchGlob) cannot fail and
// its cost stays bounded (glob.go).
//
// # Rules
//
// It reads no file and holds no lock: Parse takes the file's bytes. It
// imports engine/internal/changes (the undo stack's Limits),
// engine/internal/errs and engine/retention.
package config
