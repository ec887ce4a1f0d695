// Command cairn runs coding-agent sessions and keeps them as plain files.
// See `cairn --help`.
package main

import (
	"os"

	"cairn/cli"
	// The cloud remotes, registered by import (engine/remotes): the
	// engine links none of their SDKs, so that the hook program, built
	// without them, starts fast.
	_ "cairn/engine/remotes/azblob"
	_ "cairn/engine/remotes/s3"
)

func main() {
	os.Exit(cli.Process())
}
