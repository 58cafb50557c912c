// Package testenv decides what a test does when an outside service it
// needs (PostgreSQL, MariaDB, Redis, xmllint and the schemas) is not there:
// skip it on a developer's bare machine, and fail it in CI, where
// SITEMAP_REQUIRE_SERVICES=1 says every service must answer.
//
// go test hides the output of a passing package unless -v is given, so a
// package whose tests can skip runs them through Main, which also prints
// the skipped groups to the terminal, if there is one: a person who runs
// go test ./... sees what was not tested and why.
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
	t.Logf("%s skipped: %s", group, why)
	return true
}

// Main runs the tests of m, reports the skipped groups (see Run) and
// exits.
func Main(m *testing.M) { os.Exit(Run(m)) }

// Run runs the tests of m, then reports the skipped groups: on standard
// output (seen with -v or when a test fails) and on the terminal, if
// there is one, since go test shows nothing else of a passing package.
// It returns the exit code, so that a TestMain can clean up before
// os.Exit.
func Run(m *testing.M) int {
	code := m.Run()
	if s := Summary(); s != "" {
		fmt.Print(s)
		if !testing.Verbose() {
			if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
				io.WriteString(tty, s)
				tty.Close()
			}
		}
	}
	return code
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
