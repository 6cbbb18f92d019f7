// Package testtool lets a test say what it needs from its environment: an
// external program (tmux, tshark, chromium, ...) or a capability. Under
// plain 'go test' a missing need skips the test with a line naming it; CI
// sets JITTERLAB_REQUIRE_TOOLS=1, which turns every such skip into a
// failure, so nothing is skipped there silently.
package testtool
