//go:build !unix

package main

import "time"

// processCPU is 0 where the bench does not measure CPU time.
func processCPU() time.Duration { return 0 }
