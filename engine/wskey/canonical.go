package wskey

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"cairn/engine/internal/errs"
)

// Canonical is the canonical absolute form of dir: absolute, cleaned, with
// symbolic links resolved. Two spellings of one folder give one workspace.
// dir must be a directory: anything else, or nothing, wraps the engine's
// ErrBadInput.
func Canonical(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%w: workspace %s: %w", errs.ErrBadInput, dir, err)
	}
	if err != nil {
		return "", fmt.Errorf("engine: workspace %s: %w", dir, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("engine: workspace %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%w: workspace %s is not a directory", errs.ErrBadInput, dir)
	}
	return real, nil
}

// Location says where a directory's state lives.
type Location struct {
	Path   string `json:"path"`   // the canonical directory
	Key    string `json:"key"`    // its workspace key
	Folder string `json:"folder"` // the absolute path of its workspace folder
	Note   string `json:"note,omitempty"`
}
