// Package objref finds the objects a line or a file of the state folder
// names: every "oid" field, at any depth, compact or indented (a session
// record is written indented). A prune keeps what it finds, a move copies
// it, storage stats counts it.
//
// # Words
//
//   - oid: an object's id, 64 lowercase hex digits, as package objects
//     writes it.
//   - named: a set of oids, a map from oid to true, which the functions
//     here add to.
//
// It holds no state and takes no lock. It imports journal and
// internal/vfs.
package objref
