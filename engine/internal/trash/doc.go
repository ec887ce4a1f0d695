// Package trash keeps forgotten sessions: a trash entry per session in the
// state folder, its note, and moving a session's files between its
// workspace folder and its entry. It also runs a trim's steps, settles and
// checks the plans that make a forget, restore or trim whole, and reads
// what a retention plan needs of a session (ArtifactBytes, LastLineAt).
// The engine's Forget, Restore, trim and Prune decide what goes and take
// the locks; the files move here.
//
// # The trash
//
// Part of the format:
//
//	trash/<id>/forgotten.json         {"v":1,"session":ID,"workspace":KEY,"path":DIR,"at":T}
//	trash/<id>/sessions/<id>.*        its journals and its record
//	trash/<id>/outputs/<id>/          its retained tool outputs
//	trash/<id>/tasks/<id>/            its sub-agent transcripts
//	trash/<id>/hooks/<id>/            its hooks' pending markers
//	trash/.purge-<id>/                an entry being removed (a purge, a restore)
//
// A forget, and a restore, copies the session's files and then removes the
// originals under a plan that makes it all or nothing (the engine's
// retention plans): an entry whose plan is pending is not listed, and the
// next open of the store settles it. The session's objects stay in the
// workspace store while the trash holds the session (prune counts the
// trash's journals as references).
//
// Builds before the plans moved a session file by file, the items journal
// first (its arrival in the trash was the forget), and marked a restore
// "restoring":true in the note. Settle finishes what such a build cut
// short, from where the items journal is: in the trash only, the forget is
// finished (the rest moved in) or, for a restore, the restore; in the
// workspace only, the forget never happened (anything moved goes back).
// In both, the workspace's is live and stays (a restore whose copy is
// whole is finished).
//
// # Trim
//
// A trim moves a session to the transcript tier. It drops what only file
// revert, undo and tool_output need: the session's change records (its
// changes journal is replaced by one line,
//
//	{"v":1,"kind":"start","at":T,"why":"trimmed"}
//
// so its records reach back no further than the trim: part of the format),
// its retained tool outputs (outputs/<id>/), and the output tails of its
// shell history (an "end" line keeps its exit status and gains
// "trimmed":true; part of the format). Then the engine appends to the
// items journal
//
//	{"v":1,"kind":"meta","at":T,"meta":{"tier":"transcript"}}
//
// Compaction archives are read from the conversation itself, so they stay.
// Objects the dropped records named are left in the workspace store: a
// fork's copy of the records may name them, and prune removes those
// nothing names once they are old. Every step is idempotent and the tier
// line comes last.
//
// # Plans
//
// A forget, restore and trim each write a plan, plans/<id>.json (package
// fileplan draws it), before they change anything, and remove it last.
// The next open of the store settles a plan a crash left behind
// (Recover, SettlePlan), unless the session's lock is held:
//
//   - forget, at stage "copy" (the session's files are being copied into
//     trash/<id>/, which did not exist before): rolled back, the trash
//     entry removed. At stage "remove" (the copies are whole: the commit):
//     replayed, the workspace's files removed, its items journal first.
//     Should the workspace's items journal differ from the trash's copy by
//     then, a session of that id was written since: it is live and stays.
//   - restore, at stage "copy" (the items journal last): rolled back, each
//     copy that is still the trash's removed. At stage "remove": replayed,
//     the entry purged.
//   - trim (stage "run"): run again whole, when the items journal is still
//     the size the plan saw; otherwise its tier line is written, or the
//     session was used since, and only its record is brought up to date.
//
// SessionFiles lists what a forget or restore moves, in the order the plan
// holds it (the items journal first); CheckPlan refuses a plan that names
// a file outside its session, so no open acts on a plan it did not write.
//
// # Words
//
//   - entry: trash/<id>/, one forgotten session (Entry).
//   - note: the entry's forgotten.json (Note).
//   - ws: the workspace folder the session came from, relative to the state
//     folder (workspaces/<key>).
//   - session folders: the workspace folders holding a folder per session
//     (<folder>/<id>/); TrimFolders are those a trim drops, ForgetFolders
//     those a forget takes with the session.
//
// # Locks
//
// Nothing here holds state. The caller holds the session's ownership lock
// in its workspace folder (sessions/<id>.lock) for MoveRest and Settle,
// and for the life of a plan. It imports engine/internal/durable,
// fileplan and layout, and internal/vfs.
package trash
