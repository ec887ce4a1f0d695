package remotews

import (
	"fmt"

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
	return fmt.Sprintf("%s %v lowered to %v", l.Name, l.Asked, l.Accepted)
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
