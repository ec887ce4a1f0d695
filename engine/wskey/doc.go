// Package wskey names the folder that holds a workspace's state.
//
// # Workspace
//
// A workspace is one working directory, named by its canonical absolute path
// (symbolic links resolved by the caller). Its state lives in one folder under
// the state folder's "workspaces" folder; the folder's name is the workspace
// key.
//
// # Workspace key
//
// The key is a reversible encoding of the path, one byte at a time:
//
//	'/'                      -> '-'
//	'A'-'Z' 'a'-'z' '0'-'9' '.' '_'  -> itself
//	every other byte         -> '%XX' (two uppercase hex digits; '-' is %2D, '%' is %25)
//
// So "/home/me/my-proj" is "-home-me-my%2Dproj", and "/a/b", "/a-b" and "/a b"
// get three different keys ("-a-b", "-a%2Db", "-a%20b"). Encode does this and
// Decode undoes it; Decode accepts only what Encode can produce.
//
// A key longer than MaxKeyLen (200) bytes keeps its first KeepLen (180) bytes,
// never cutting inside a %XX escape (it cuts before the escape), and appends
// '~' and the first 16 hex digits of the SHA-256 of the path:
//
//	-home-me-very-long...-deep~3f9a0c1b2d4e5f60
//
// Key applies this rule. A hashed key cannot be decoded: its workspace.json
// names the path.
//
// # Suffixes
//
// Two paths can still meet in one folder: on a case-insensitive filesystem
// ("/A" and "/a"), or, with astronomically small odds, through the hash. The
// folder's workspace.json says whose it is:
//
//	{"v":1,"path":"/home/me/my-proj","created_at":"2026-11-29T09:12:03.120Z"}
//
// A folder whose workspace.json names another path is never used for this
// path: Resolve takes the next free suffix, key~2, key~3, ..., and returns a
// note saying so. A folder with the un-suffixed key that has no workspace.json
// (its creation was interrupted) is adopted when the key decodes to the path.
// '~' is never produced by Encode (it is %7E), so a key with '~' is always a
// hashed or suffixed one.
//
// # Starting from a folder
//
// A reader that starts from a folder rather than a directory (a listing of
// every workspace, the HTTP server) trusts the path in its workspace.json
// only through Verify: the path must be absolute and clean, and Resolve of it
// must pick that very folder. A folder that fails is used for no path.
//
// # Disputed folder
//
// Only a collision can put two paths in one folder, and a collision has a
// shape: the folder is found under another spelling of its name (a
// case-insensitive filesystem), or its workspace.json names a path with the
// same key (a hash collision). The folder named by the path's own,
// un-suffixed key, found by its exact name, whose workspace.json is
// unreadable, names a path with another key, or is missing from a hashed
// folder, is none of these: it is damaged or was moved. Passing it over
// would hide every session in it behind a new ~2 folder, so Resolve
// returns a *DisputedError (ErrDisputed) instead and writes nothing. The
// caller looks at what the folder holds and rewrites its workspace.json
// (WriteInfo) or stops with a way out.
package wskey
