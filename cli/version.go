package cli

import (
	"runtime/debug"
)

// buildTime is the commit time the build was stamped with, "" without one.
func buildTime(bi *debug.BuildInfo, ok bool) string {
	if !ok || bi == nil {
		return ""
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.time" {
			return s.Value
		}
	}
	return ""
}

// readBuildInfo is debug.ReadBuildInfo: the build info of this binary.
var readBuildInfo = debug.ReadBuildInfo
