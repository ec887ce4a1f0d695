//go:build gcs

package main

// Google Cloud Storage remotes, in a build with -tags gcs only (the
// package says why).
import _ "cairn/engine/remotes/gcs"
