package httpapi

// Names the tests of package httpapi_test need from inside the package.
var HashToken = hashToken

const MaxRestoreBody = maxRestoreBody
