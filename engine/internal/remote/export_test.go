package remote

// For the external tests (s3_test.go: package remote_test, which imports
// the S3 provider, itself importing this package).
var (
	LeaseSuite = leaseSuite
	PutBytes   = putBytes
)
