package main

// B12 and B13 sync to an S3 server through the engine, which registers
// no cloud provider itself.
import _ "cairn/engine/remotes/s3"
