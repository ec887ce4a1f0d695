package remotews

import (
	"fmt"
	"strconv"
	"strings"

	"cairn/engine"
)

// Limits are the recording limits a client asks for and a host accepts,
// named as the keys of config.json.
type Limits struct {
	SnapshotsEnabled   bool  `json:"snapshots.enabled"`
	MaxPerSession      int64 `json:"snapshots.max_per_session"`
	MaxBytesPerSession int64 `json:"snapshots.max_bytes_per_session"`
	MaxFileBytes       int64 `json:"snapshots.max_file_bytes"`
	RecordingEnabled   bool  `json:"storage.snapshots.enabled"`
	RecordMaxBytesMB   int64 `json:"storage.snapshots.max_bytes_mb"`
	RecordMaxFiles     int64 `json:"storage.snapshots.max_files"`
	RecordMaxFileMB    int64 `json:"storage.snapshots.max_file_bytes_mb"`
}

// LimitsOf are the limits configuration c sets.
func LimitsOf(c engine.Config) Limits {
	return Limits{
		SnapshotsEnabled:   c.Snapshots.Enabled,
		MaxPerSession:      int64(c.Snapshots.MaxPerSession),
		MaxBytesPerSession: c.Snapshots.MaxBytesPerSession,
		MaxFileBytes:       c.Snapshots.MaxFileBytes,
		RecordingEnabled:   c.Storage.RecordingEnabled,
		RecordMaxBytesMB:   int64(c.Storage.MaxBytesMB),
		RecordMaxFiles:     int64(c.Storage.MaxFiles),
		RecordMaxFileMB:    int64(c.Storage.MaxFileBytesMB),
	}
}

// LimitLower says that the host lowered a limit the client asked for.
type LimitLower struct {
	Name     string `json:"name"`
	Asked    any    `json:"asked"`
	Accepted any    `json:"accepted"`
}

func (l LimitLower) String() string {
	return fmt.Sprintf("%s %s lowered to %s", l.Name, limitValue(l.Asked), limitValue(l.Accepted))
}

// limitValue is a limit's value as config.json writes it: a number read
// back from JSON (a float64) in whole digits, not 2.097152e+06.
func limitValue(v any) string {
	if f, ok := v.(float64); ok {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

// Lower is the limits a host that accepts at most accepted grants to a
// client asking for asked: each value the smaller of the two, a switch
// on only when both are, and the list of those it lowered. A value the
// client left at zero (not set) takes the host's.
func Lower(asked, accepted Limits) (Limits, []LimitLower) {
	var low []LimitLower
	out := accepted
	flag := func(name string, a, h bool, into *bool) {
		*into = a && h
		if a && !h {
			low = append(low, LimitLower{name, a, h})
		}
	}
	num := func(name string, a, h int64, into *int64) {
		switch {
		case a == 0:
			*into = h
		case a > h:
			*into = h
			low = append(low, LimitLower{name, a, h})
		default:
			*into = a
		}
	}
	flag("snapshots.enabled", asked.SnapshotsEnabled, accepted.SnapshotsEnabled, &out.SnapshotsEnabled)
	num("snapshots.max_per_session", asked.MaxPerSession, accepted.MaxPerSession, &out.MaxPerSession)
	num("snapshots.max_bytes_per_session", asked.MaxBytesPerSession, accepted.MaxBytesPerSession, &out.MaxBytesPerSession)
	num("snapshots.max_file_bytes", asked.MaxFileBytes, accepted.MaxFileBytes, &out.MaxFileBytes)
	flag("storage.snapshots.enabled", asked.RecordingEnabled, accepted.RecordingEnabled, &out.RecordingEnabled)
	num("storage.snapshots.max_bytes_mb", asked.RecordMaxBytesMB, accepted.RecordMaxBytesMB, &out.RecordMaxBytesMB)
	num("storage.snapshots.max_files", asked.RecordMaxFiles, accepted.RecordMaxFiles, &out.RecordMaxFiles)
	num("storage.snapshots.max_file_bytes_mb", asked.RecordMaxFileMB, accepted.RecordMaxFileMB, &out.RecordMaxFileMB)
	return out, low
}

// Apply lowers the recording limits of configuration c to l: each limit
// the smaller of the two, a switch on only when both are. The host
// applies the limits it granted a client to the client's host sessions
// (engine.SessionOptions.Limit), so a configuration edited since can
// lower them further but never raise them.
func Apply(c engine.Config, l Limits) engine.Config {
	c.Snapshots.Enabled = c.Snapshots.Enabled && l.SnapshotsEnabled
	c.Snapshots.MaxPerSession = int(min(int64(c.Snapshots.MaxPerSession), l.MaxPerSession))
	c.Snapshots.MaxBytesPerSession = min(c.Snapshots.MaxBytesPerSession, l.MaxBytesPerSession)
	c.Snapshots.MaxFileBytes = min(c.Snapshots.MaxFileBytes, l.MaxFileBytes)
	c.Storage.RecordingEnabled = c.Storage.RecordingEnabled && l.RecordingEnabled
	c.Storage.MaxBytesMB = int(min(int64(c.Storage.MaxBytesMB), l.RecordMaxBytesMB))
	c.Storage.MaxFiles = int(min(int64(c.Storage.MaxFiles), l.RecordMaxFiles))
	c.Storage.MaxFileBytesMB = int(min(int64(c.Storage.MaxFileBytesMB), l.RecordMaxFileMB))
	return c
}

// LoweredMessage is the one line that says which limits the host lowered,
// "" when it lowered none.
func LoweredMessage(low []LimitLower) string {
	if len(low) == 0 {
		return ""
	}
	parts := make([]string, len(low))
	for i, l := range low {
		parts[i] = l.String()
	}
	return "the host accepts less, and records this session under its limits: " + strings.Join(parts, ", ")
}
