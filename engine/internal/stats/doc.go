// Package stats measures where the disk went in a state folder (cairn
// storage stats, /storage): one walk puts every file and folder in exactly
// one part, so the parts add up to what du says of the whole folder. A
// prune measures what it would free with the same sizes.
//
// # Words
//
//   - Bytes: apparent size, as `du -sb` counts it (folders included).
//   - Disk: allocated blocks, as `du -s -B1` counts them; a filesystem
//     without stat data (a test's) counts the size rounded up to 4 KiB.
//   - part: one of Parts, by where a name lies in the state folder
//     (PartOf). A file with several names counts once, at the first.
//
// It also lists each workspace's change store (ChangeStore: its objects
// and the record lines of its changes journals) for cairn storage
// snapshots.
//
// It holds no state and takes no lock: a walk reads while others write,
// and a file that vanishes meanwhile is skipped. It imports
// engine/internal/layout, engine/internal/changes (the record lines'
// kinds), engine/wskey and internal/vfs.
package stats
