//go:build !jitterlab_unmeasured

package lab

// measured is true in every build but one: the session calls its meter at
// every point where it measures. Built with -tags jitterlab_unmeasured
// (unmeasured.go) it calls none, so that
//
//	go test -tags jitterlab_unmeasured ./lab -run XXX -bench 'SessionHour(BareLoop)?$'
//
// times the model alone: what the measurement costs is the difference.
// Only that benchmark is meaningful in such a build; the summaries and
// samples are empty and the tests fail.
const measured = true
