// Command cairn runs coding-agent sessions and keeps them as plain files.
// See `cairn --help`.
package main

import (
	"context"
	"os"
	"os/signal"

	"cairn/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := cli.Main(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
