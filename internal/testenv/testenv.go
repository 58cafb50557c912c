// Package testenv decides what a test does when an outside service it
// needs (PostgreSQL, MariaDB, Redis, xmllint and the schemas) is not there:
// skip it on a developer's bare machine, and fail it in CI, where
// SITEMAP_REQUIRE_SERVICES=1 says every service must answer.
//
// go test hides the output of a passing package unless -v is given, so a
// package whose tests can skip runs them through Main, which prints the
// skipped groups once, on standard error and on the terminal, and keeps
// such a run out of go test's cache: a person who runs go test ./..., on
// the first run or a rerun, sees what was not tested and why.
package testenv

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
)

// RequireVar is the variable that turns skips into failures.
const RequireVar = "SITEMAP_REQUIRE_SERVICES"

// Required reports whether every service must be there.
func Required() bool { return os.Getenv(RequireVar) == "1" }

var (
	mu      sync.Mutex
	skipped = map[string]string{} // group → why
)

// Unavailable stops t, which needs group (such as "PostgreSQL"), for the
// reason why: it fails t when services are required, and skips it
// otherwise, remembering the group for Main's summary.
func Unavailable(t testing.TB, group, why string) {
	t.Helper()
	if Without(t, group, why) {
		t.Skipf("%s tests skipped: %s", group, why)
	}
}

// Without is for a check that is one part of t, such as validating a
// document against the schemas: when services are required it fails t
// and returns false; otherwise it logs that the check was not made,
// remembers the group for Main's summary, and returns true, and the rest
// of t goes on.
func Without(t testing.TB, group, why string) bool {
	t.Helper()
	if Required() {
		t.Fatalf("%s is required (%s=1) but unavailable: %s", group, RequireVar, why)
		return false
	}
	mu.Lock()
	skipped[group] = why
	mu.Unlock()
	read()
	t.Logf("%s skipped: %s", group, why)
	return true
}

// Main runs the tests of m, reports the skipped groups (see Run) and
// exits.
func Main(m *testing.M) { os.Exit(Run(m)) }

// Run runs the tests of m, then reports the skipped groups, once for the
// package (Summary): on standard error, which -v, -json, CI logs and a
// test binary run by hand all show; and, since go test shows nothing of a
// passing package without -v, also on the terminal, if there is one and
// standard error is not it. A package that skipped a group is kept out of
// go test's cache (noCache), so that a rerun runs it, and says it, again.
// It returns the exit code, so that a TestMain can clean up before
// os.Exit.
func Run(m *testing.M) int {
	code := m.Run()
	s := Summary()
	if s == "" {
		os.Remove(SkipFile) // from an earlier run that skipped
		return code
	}
	io.WriteString(os.Stderr, s)
	if !testing.Verbose() && !isTerminal(os.Stderr) {
		if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
			io.WriteString(tty, s)
			tty.Close()
		}
	}
	noCache(s)
	return code
}

// isTerminal reports whether f is a terminal (a character device).
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// noCache keeps this run out of go test's cache. go test records the
// files of the module that a test reads while its tests run, and does not
// cache a run that read one changed less than two seconds before it ended
// (its modTimeCutoff). So a skip reads SkipFile, in the package's
// directory (read), and Run writes the summary there once the tests are
// over. A cached "ok" would hide the skips on every rerun until a file
// changes. The file stays, for a person or CI to read; a run that skips
// nothing removes it.
func noCache(summary string) { os.WriteFile(SkipFile, []byte(summary), 0o644) }

// SkipFile is the file, in a package's directory, that lists what its last
// run of tests skipped (noCache). .gitignore names it.
const SkipFile = ".skipped-tests"

// read reads SkipFile, for go test to record.
func read() {
	if _, err := os.Stat(SkipFile); err != nil {
		os.WriteFile(SkipFile, nil, 0o644)
	}
	if f, err := os.Open(SkipFile); err == nil {
		f.Close()
	}
}

// Summary lists the groups skipped so far, one line each, or "" if none.
func Summary() string {
	mu.Lock()
	defer mu.Unlock()
	groups := make([]string, 0, len(skipped))
	for g := range skipped {
		groups = append(groups, g)
	}
	sort.Strings(groups)
	var b strings.Builder
	for _, g := range groups {
		fmt.Fprintf(&b, "%s: %s tests skipped: %s (%s=1 makes this a failure)\n", testPackage(), g, skipped[g], RequireVar)
	}
	return b.String()
}

// testPackage names the package under test by its directory.
func testPackage() string {
	wd, err := os.Getwd()
	if err != nil {
		return "?"
	}
	return wd
}
