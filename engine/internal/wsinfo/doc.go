// Package wsinfo settles a workspace folder whose workspace.json is in
// dispute. A workspace folder's workspace.json names its path. When the
// folder with the path's own key holds a workspace.json that is
// unreadable, names a path with another key, or is missing from a hashed
// folder (wskey calls it disputed), cairn neither uses the folder blindly
// nor passes it over for a new ~2 folder, which would hide every session
// in it. It asks the sessions: each one's items journal opens with the
// path it was made in. When every session was made in this directory (or
// there are none), workspace.json is rewritten to name it, atomically, and
// the user is told once (Settle). Otherwise nothing is used or changed,
// and the error says how to settle it: `cairn storage adopt` when the
// folder is this directory's (a directory that was moved or renamed), or
// moving the folder away. Check is fsck's look at the same file.
package wsinfo
