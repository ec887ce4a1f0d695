// Package trash keeps forgotten sessions: a trash entry per session in the
// state folder, its note, and moving a session's files between its
// workspace folder and its entry. The engine's Forget, Restore and Prune
// decide what goes and take the locks; the files move here.
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
// # Plans
//
// A forget, restore and trim each write a plan, plans/<id>.json (package
// fileplan draws it), before they change anything, and remove it last.
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
