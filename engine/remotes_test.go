package engine

// The sync tests run against an S3 server too; the engine registers no
// cloud provider itself (engine/remotes).
import _ "cairn/engine/remotes/s3"
