package cli

// The cairn command registers the cloud providers in its main package
// (cmd/cairn); these tests run cli in-process, with the S3 provider for
// the lease tests against an S3 server.
import _ "cairn/engine/remotes/s3"
