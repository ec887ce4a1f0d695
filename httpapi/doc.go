// Package httpapi is cairn's HTTP API and its credentials: the handlers of
// the snapshot endpoints, bearer-token checks, the gateway token and the
// paired credentials kept in the state folder. The cairn command's `serve`,
// `pair` and `--listen` call it; it calls package engine and nothing above.
//
// # Endpoints
//
// The API of snapshots, served by NewStoreServer for the sessions no
// process owns (`cairn serve`) and by NewSessionServer for the session a
// REPL owns (`cairn --listen ADDR`):
//
//	GET  /api/sessions/{id}/snapshots           -> engine.SnapshotList
//	POST /api/sessions/{id}/snapshots/restore   -> engine.RestoreResult
//	     body {"action":"undo"} (also {} or empty), {"action":"redo"}, {"id":"<snapshot>"}
//
// {id} is a full session id, a unique id prefix or an exact title. A
// listing takes no lock and writes nothing (it reads the journals as they
// are), so it answers while another process owns the session; a restore
// owns the session while it runs. Every answer is JSON; an error is
// {"ok":false,"code":WORD,"error":MESSAGE}:
//
//	400 bad_request        malformed body: bad JSON, unknown field or action, both action and id
//	401 unauthorized       missing or wrong bearer token (WWW-Authenticate: Bearer)
//	403 forbidden          a paired credential without the attach scope; a request a web
//	                       page may have made: a Host that is not a loopback name with the
//	                       server's port (on a loopback address), an Origin that is not the
//	                       server's own, a cross-site Sec-Fetch-Site (origin.go)
//	404 not_found          unknown session, or one outside the credential's allowlist (same bytes)
//	405 method_not_allowed wrong method (Allow names the right one)
//	409 refused            nothing to undo or redo, an unknown or already undone snapshot id
//	409 busy               a restore while another process owns the session ("pid" names it)
//	409 ambiguous          {id} matches several sessions the token may see
//	409 damaged            the session's workspace folder does not belong to the path its
//	                       workspace.json names, or that directory is now a link: the folder
//	                       is not served (the log names it once), nothing is written
//	413 too_large          a body over 64 KiB
//	503 unavailable        a token other than the gateway's while credentials.json cannot be
//	                       read (damaged: the log says how to repair it; the gateway token works)
//
// An ambiguous reference answers 409, not 404: the candidates are counted
// among the sessions the token may see only, so it reveals nothing about
// the others.
//
// # Credentials
//
// The gateway token is one line in a 0600 file (gateway.token in the state
// folder unless told otherwise, TokenAt), made with crypto/rand on first
// start; it may do everything. A paired credential is made by Pair (`cairn
// pair`): its token is printed once and only the token's SHA-256 is kept,
// with its scopes and the ids of the sessions it may see, in
// credentials.json in the state folder (0600, replaced atomically):
//
//	{"v":1,"credentials":[{"id":"p-…","sha256":HEX,"scopes":["attach"],"sessions":[ID,…],"created":T}]}
//
// Pairings are written one at a time under a flock on credentials.lock,
// beside it (never removed, holds nothing).
//
// Tokens are compared by their SHA-256, in constant time. Paired
// credentials are read on every request, so a new pairing works at once.
//
// A credentials.json that cannot be read is left in place and named by
// Fsck (`cairn storage fsck`): paired tokens cannot be checked until it is
// repaired (the server answers them 503), the gateway token still works,
// and pairing fails (ErrBadCredentials) rather than replace it.
package httpapi
