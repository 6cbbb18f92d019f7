// Package golden compares a test's output with a file committed under
// testdata/ (a golden file), or rewrites the file when the test binary
// runs with -update: [Check]. A difference fails the test with the lines
// that differ, numbered, so a reviewer sees what changed without a diff
// tool. The -update flag is this package's, shared by every test that
// imports it.
package golden
