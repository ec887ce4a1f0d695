package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"cairn/internal/vfs"
)

// Format is the version of the on-disk layout this build reads and writes.
// It is part of the format: a state folder whose FORMAT file names a newer
// one is refused rather than misread.
const Format = 1

// formatFile is the content of the FORMAT file at the top of a state folder.
type formatFile struct {
	V      int `json:"v"`
	Format int `json:"format"`
}

// openHome creates the state folder (0700) when it is missing, opens it as a
// vfs.Disk, and checks or writes its FORMAT file.
func openHome(dir string) (*vfs.Disk, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(abs, vfs.DirPerm); err != nil {
		return nil, fmt.Errorf("engine: create state folder: %w", err)
	}
	d, err := vfs.OpenDisk(abs)
	if err != nil {
		return nil, fmt.Errorf("engine: open state folder: %w", err)
	}
	if err := checkFormat(d, abs); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// checkFormat reads the FORMAT file, or writes it in a new state folder.
func checkFormat(fsys vfs.FS, where string) error {
	data, err := vfs.ReadFile(fsys, "FORMAT")
	if vfs.IsNotExist(err) {
		b, _ := json.Marshal(formatFile{V: 1, Format: Format})
		if err := vfs.WriteFileAtomic(fsys, "FORMAT", append(b, '\n')); err != nil {
			return fmt.Errorf("engine: write FORMAT: %w", err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("engine: read FORMAT: %w", err)
	}
	var f formatFile
	if err := json.Unmarshal(data, &f); err != nil || f.Format < 1 {
		return &FormatError{Path: where, Found: f.Format, Err: errors.New("FORMAT file is unreadable")}
	}
	if f.Format > Format {
		return &FormatError{Path: where, Found: f.Format}
	}
	return nil
}

// FormatError says a state folder cannot be used by this build.
type FormatError struct {
	Path  string
	Found int
	Err   error
}

func (e *FormatError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("engine: state folder %s: %v", e.Path, e.Err)
	}
	return fmt.Sprintf("engine: state folder %s has format %d; this build (cairn %s) reads format %d: use a newer cairn",
		e.Path, e.Found, Version, Format)
}

func (e *FormatError) Unwrap() error { return ErrFormat }
