// Package wsident gives each workspace a host serves over SSH an identity
// and a generation, kept in the host's state folder.
//
// # Words
//
//   - identity: a random UUID the host's state folder gives a workspace
//     path the first time it serves it. It never changes for that path in
//     that state folder: another identity means another machine, or a
//     state folder made again.
//   - generation: a number, 1 at first, that moves on when the workspace
//     is replaced: the folder at the path is another folder than the one
//     seen last (deleted and made again, another device, inode or birth
//     time), or the host's user asks (`cairn host --new-generation`).
//     Change records are made against one generation; a session bound to
//     an older one is refused, so that its records are never applied to
//     files they were not taken from.
//   - stamp: what tells one folder from another at the same path: its
//     device, inode and, where the filesystem keeps them, birth time
//     (statx) and inode generation number (FS_IOC_GETVERSION). A folder
//     made again at once can reuse the inode, and within the kernel
//     clock's tick the birth time too; its generation number is new.
//
// # The file
//
// <state folder>/hosted/<workspace key>.json (the key of package wskey),
// replaced whole by atomic rename, under the lock of
// hosted/<workspace key>.lock (held for the read, compare and write):
//
//	{"v":1,"path":"/srv/proj","identity":UUID,"generation":2,
//	 "stamp":{"dev":N,"ino":N,"birth_ns":N,"ino_gen":N},"since":T,"why":"replaced",
//	 "previous":[{"generation":1,"stamp":{...},"since":T,"why":"first"}]}
//
// "why" is first, replaced or asked. "previous" keeps the last
// MaxPrevious generations, newest last, so a refusal can say when the
// workspace was replaced. A file that names another path (two paths
// whose keys meet) or does not read is refused, never overwritten: its
// identity is what sessions are bound to.
package wsident
