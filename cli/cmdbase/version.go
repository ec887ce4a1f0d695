package cmdbase

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// VersionText is what `cairn --version` prints for the build info bi (from
// debug.ReadBuildInfo): the module version, then the VCS revision and the
// commit's time when the build was stamped with them. Go stamps them only
// with -buildvcs=true (a machine may set GOFLAGS=-buildvcs=false); a build
// without them says devel.
func VersionText(bi *debug.BuildInfo, ok bool) string {
	if !ok || bi == nil {
		return "cairn devel"
	}
	version := bi.Main.Version
	if version == "" || version == "(devel)" {
		version = "devel"
	}
	var rev, at string
	modified := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		return "cairn " + version
	}
	parts := []string{"revision " + rev}
	if at != "" {
		parts = append(parts, at)
	}
	if modified {
		parts = append(parts, "modified")
	}
	return fmt.Sprintf("cairn %s (%s)", version, strings.Join(parts, ", "))
}
