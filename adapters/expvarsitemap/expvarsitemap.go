// Package expvarsitemap publishes the counters of a [sitemap.Sitemap]
// with the standard library's expvar, for programs without Prometheus:
//
//	expvarsitemap.Publish("sitemap", sm) // then GET /debug/vars
//
// The sitemap package itself does not import expvar, whose init adds
// /debug/vars to http.DefaultServeMux. Without per-section counters,
// expvar alone does:
//
//	expvar.Publish("sitemap", expvar.Func(func() any { return sm.Stats() }))
package expvarsitemap

import (
	"expvar"

	"github.com/freshmap/sitemap"
)

// Vars is what Func returns, and the JSON that Publish shows.
type Vars struct {
	sitemap.Stats // the whole Sitemap's counters; BuildTime in nanoseconds
	// Sections are the counters of each section, by its name ("" for an
	// unnamed one), and of the pseudo-sections "_index", "_feed",
	// "_feed:NAME" and "_other" (see sitemap.SectionStats).
	Sections map[string]sitemap.SectionStats
	// BuildBuckets are the upper bounds, in seconds, of the build
	// histograms' buckets (sitemap.BuildBuckets).
	BuildBuckets []float64
}

// Func returns an expvar.Func of the current Vars of sm.
func Func(sm *sitemap.Sitemap) expvar.Func {
	return func() any {
		v := Vars{Stats: sm.Stats(), Sections: make(map[string]sitemap.SectionStats), BuildBuckets: sitemap.BuildBuckets()}
		for _, st := range sm.SectionStats() {
			v.Sections[st.Section] = st
		}
		return v
	}
}

// Publish publishes Func(sm) under name. Like expvar.Publish, it panics
// if name is already in use.
func Publish(name string, sm *sitemap.Sitemap) {
	expvar.Publish(name, Func(sm))
}
