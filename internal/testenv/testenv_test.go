package testenv

import (
	"strings"
	"testing"
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
