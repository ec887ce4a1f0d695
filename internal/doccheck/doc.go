// Package doccheck holds checks of the repository's own documentation that
// cross every package: a comment that names a .go or .md file names one
// the repository holds. It has no code of its own, only tests.
package doccheck
