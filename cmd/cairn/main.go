// Command cairn runs coding-agent sessions and keeps them as plain files.
// See `cairn --help`.
package main

import (
	"os"

	"cairn/cli"
)

func main() {
	os.Exit(cli.Process())
}
