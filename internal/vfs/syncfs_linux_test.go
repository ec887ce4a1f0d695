package vfs

import "testing"

// TestReleaseAtLeast: the kernel release is read by its leading numbers,
// whatever follows them (a distribution's suffix, a release candidate).
func TestReleaseAtLeast(t *testing.T) {
	for rel, want := range map[string]bool{
		"6.8.0-45-generic":                   true,
		"5.8.0":                              true,
		"5.8-rc1":                            true,
		"5.10.102.1-microsoft-standard-WSL2": true,
		"5.7.19":                             false,
		"4.19.0-26-amd64":                    false,
		"5":                                  false,
		"":                                   false,
		"x.y":                                false,
	} {
		if got := releaseAtLeast(rel, 5, 8); got != want {
			t.Errorf("releaseAtLeast(%q, 5, 8) = %v, want %v", rel, got, want)
		}
	}
}
