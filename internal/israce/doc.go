// Package israce says whether the binary was built with the race detector
// (go build -race), and nothing else: it imports nothing, so a test helper
// that must stay small (internal/testmem's children run under 'ulimit -v',
// where a cgo-linked net package's malloc arenas do not fit) can ask too.
package israce
