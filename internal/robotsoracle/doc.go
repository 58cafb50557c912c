// Package robotsoracle holds no code: its module's test reads the
// robots.txt the middleware serves with github.com/temoto/robotstxt, a
// parser written apart from ours, which the root module must not require
// (docs/modules.md: a test's dependency lands in every consumer's module
// graph). The test uses only the root package's public API.
package robotsoracle
