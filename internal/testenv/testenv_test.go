package testenv

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// fakeTB records what Unavailable does to a test.
type fakeTB struct {
	testing.TB
	fatal, skip string
}

func (f *fakeTB) Helper()                   {}
func (f *fakeTB) Fatalf(s string, a ...any) { f.fatal = s }
func (f *fakeTB) Skipf(s string, a ...any)  { f.skip = s }
func (f *fakeTB) Logf(s string, a ...any)   {}

func TestUnavailable(t *testing.T) {
	t.Setenv(RequireVar, "")
	f := &fakeTB{}
	Unavailable(f, "Redis", "SITEMAP_TEST_REDIS_ADDR is not set")
	if f.skip == "" || f.fatal != "" {
		t.Errorf("without %s: skip %q, fatal %q; want a skip", RequireVar, f.skip, f.fatal)
	}
	if s := Summary(); !strings.Contains(s, "Redis tests skipped: SITEMAP_TEST_REDIS_ADDR is not set") {
		t.Errorf("summary %q does not name the group and the reason", s)
	}

	t.Setenv(RequireVar, "1")
	f = &fakeTB{}
	Unavailable(f, "Redis", "connection refused")
	if f.fatal == "" || f.skip != "" {
		t.Errorf("with %s=1: skip %q, fatal %q; want a failure", RequireVar, f.skip, f.fatal)
	}
}

func TestWithout(t *testing.T) {
	t.Setenv(RequireVar, "")
	f := &fakeTB{}
	if !Without(f, "xmllint", "not on PATH") || f.skip != "" || f.fatal != "" {
		t.Errorf("without %s: the test must go on (skip %q, fatal %q)", RequireVar, f.skip, f.fatal)
	}
	if !strings.Contains(Summary(), "xmllint tests skipped: not on PATH") {
		t.Errorf("summary %q does not name the check", Summary())
	}
	t.Setenv(RequireVar, "1")
	f = &fakeTB{}
	if Without(f, "xmllint", "not on PATH") || f.fatal == "" {
		t.Errorf("with %s=1: want a failure", RequireVar)
	}
}

// helperVar makes this test binary, run again by TestRunReports, a
// package that skips a group, run through Main.
const helperVar = "TESTENV_RUN_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(helperVar) == "" {
		os.Exit(m.Run()) // the tests of this package record skips of fakes
	}
	Main(m)
}

func TestRunHelper(t *testing.T) {
	if os.Getenv(helperVar) == "" {
		t.Skip("run by TestRunReports")
	}
	t.Setenv(RequireVar, "")
	Unavailable(t, "Fake", "the fake service is not here")
}

// TestRunReports: a package that skipped a group says so once, on
// standard error, with -v or not (go test shows the binary's standard
// error under -v, in -json and when a test fails; a test binary run by
// hand shows it always); and reads a file it has just written, which
// keeps the run out of go test's cache, so that a rerun says it again.
func TestRunReports(t *testing.T) {
	defer os.Remove(SkipFile)
	for _, verbose := range []bool{false, true} {
		args := []string{"-test.run=^TestRunHelper$"}
		if verbose {
			args = append(args, "-test.v")
		}
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), helperVar+"=1", RequireVar+"=")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("-v %v: %v\n%s%s", verbose, err, stdout.String(), stderr.String())
		}
		line := "Fake tests skipped: the fake service is not here (" + RequireVar + "=1 makes this a failure)\n"
		if n := strings.Count(stderr.String(), line); n != 1 {
			t.Errorf("-v %v: the summary is on standard error %d times, want once:\n%s", verbose, n, stderr.String())
		}
		if strings.Contains(stdout.String(), line) {
			t.Errorf("-v %v: the summary is on standard output too:\n%s", verbose, stdout.String())
		}
	}
	if fi, err := os.Stat(SkipFile); err != nil || time.Since(fi.ModTime()) > time.Minute {
		t.Errorf("the file that keeps the run out of the cache: %v", err)
	}
}
