// Package promsitemap exports the counters of a [sitemap.Sitemap] as
// Prometheus metrics:
//
//	reg := prometheus.NewRegistry()
//	reg.MustRegister(promsitemap.New(sm))
//	http.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
//
// Every metric is read from [sitemap.Sitemap.Stats] and
// [sitemap.Sitemap.SectionStats] when the registry is scraped; nothing is
// counted twice, and serving does not wait on Prometheus. Most metrics
// carry a section label: a section's Name ("" for an unnamed section), or
// one of the pseudo-sections "_index", "_feed", "_feed:NAME" and "_other"
// that SectionStats documents. Labels come from the configuration only,
// never from a request. To export several Sitemaps into one registry, tell
// them apart with prometheus.WrapRegistererWith and a constant label.
//
// Every metric, its labels and what it counts are tabled in the sitemap
// module's docs/metrics.md, which a test keeps to what New describes:
// https://github.com/freshmap/sitemap/blob/main/docs/metrics.md
package promsitemap

import (
	"strconv"

	"github.com/freshmap/sitemap"
	"github.com/prometheus/client_golang/prometheus"
)

// collector is the prometheus.Collector of one Sitemap.
type collector struct {
	sm      *sitemap.Sitemap
	buckets []float64

	builds, buildErrors, buildSeconds   *prometheus.Desc
	requests, responses, rejected       *prometheus.Desc
	dropped                             *prometheus.Desc
	servedBytes, cacheBytes, cacheItems *prometheus.Desc
	revalidated, corrected              *prometheus.Desc
	indexNowURLs, indexNowFailed        *prometheus.Desc
	indexNowRetried                     *prometheus.Desc
	store, storeErrors, storeDown       *prometheus.Desc
	auditURLs, auditFindings, fileFinds *prometheus.Desc
	auditLeftOut                        *prometheus.Desc
	crawlLast, crawlFetches             *prometheus.Desc
	crawlForbidden, crawlUnlogged       *prometheus.Desc
	crawlClaims                         *prometheus.Desc
}

// New returns a collector of the metrics of sm, to register with a
// prometheus.Registerer. The metrics, all prefixed sitemap_, are:
//
//	builds_total{section}                   documents built successfully
//	build_errors_total{section}             builds that failed (source error, panic, timeout)
//	build_duration_seconds{section}         histogram of build durations, failed builds too: 1 ms to 2 min
//	requests_total{section,result}          requests for a document, by cache result: hit, miss or stale
//	responses_total{section,code}           responses by status: 304, 404 and 503 (the others are 200s, 206s and 405s)
//	rejected_urls_total{section,reason}     URLs skipped: the InvalidURLError's Field ("loc", "news.publication_date", …) or "page_full"
//	dropped_elements_total{section,reason}  elements left out of URLs written: the InvalidURLError's Field ("image.loc", "video.title", …)
//	served_bytes_total{section}             response body bytes written
//	cache_bytes{section}                    compressed bytes of the cached documents
//	cache_entries{section}                  cached documents
//	revalidations_total                     expired pages renewed without a rebuild (their Version unchanged)
//	corrected_urls_total                    URLs written with a correction (Config.OnNotice)
//	indexnow_urls_total{result}             IndexNow URLs: sent, dropped (queue full or closed) or refused (not under the base URL)
//	indexnow_failed_batches_total           IndexNow batches an endpoint refused, dropped
//	indexnow_retries_total                  IndexNow posts that failed and will be retried
//	store_documents_total{result}           with a Store: documents taken from it (hit), and builds that waited for another replica's (wait)
//	store_errors_total                      store calls that failed, and stored values that did not decode
//	store_down                              1 while the store is not called (the replica serves alone), else 0
//	audit_urls_total{result}                self-audit URLs: checked (requested in process), skipped (over the rate, or off the site)
//	audit_findings_total{kind}              self-audit findings: status, redirect, noindex, canonical, robots, error,
//	                                        lastmod_behind (the page newer than its lastmod), lastmod_ahead (the lastmod newer than the page)
//	audit_file_findings{file,kind}          the findings of each file's last self-audit, for the kinds it found (at most 1,024 files)
//	audit_left_out_urls                     URLs the self-audit leaves out of the files now (Audit.LeaveOut)
//	crawler_last_fetch_timestamp_seconds{section,file,crawler,verified}
//	                                        the crawl log: when each crawler family last fetched each file
//	crawler_fetches_total{section,crawler,verified,code}
//	                                        fetches of the section's files by crawler family and status ("other" for a status not counted apart)
//	crawler_claims_total{purpose,check}     fetches by crawlers of each purpose (search, training, user-triggered),
//	                                        by check: verified, spoofed (outside the family's given ranges) or unverifiable
//	crawler_forbidden_total                 403s to clients that are not verified crawlers (Crawlers.VerifiedOnly)
//	crawl_log_unlogged_total                fetches not logged: the crawl log had Crawlers.Files files already
//
// The crawler label is a family of sitemap.CrawlFetch ("Googlebot",
// "GPTBot", "ChatGPT-User", …, "other") and verified "true" or "false",
// so a claim not verified by address is never counted with the verified
// family; the files are those the crawl log holds, at most
// Crawlers.Files. A spoofed claim's last fetch is not exported per file
// (anyone can send any User-Agent, and each would be series of every
// file); its fetches are counted in crawler_fetches_total and
// crawler_claims_total. crawler_claims_total has at most 9 series.
//
// The IndexNow metrics are zero unless Config.IndexNow is set, the store
// metrics unless Config.Store is, and the audit metrics unless
// Config.Audit is. A file label is a sitemap file's name, which comes from
// the configuration and a page number.
func New(sm *sitemap.Sitemap) prometheus.Collector {
	sec := []string{"section"}
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc("sitemap_"+name, help, labels, nil)
	}
	return &collector{
		sm:              sm,
		buckets:         sitemap.BuildBuckets(),
		builds:          d("builds_total", "Documents built successfully.", sec...),
		buildErrors:     d("build_errors_total", "Builds that failed: a source error, a panic or a timeout.", sec...),
		buildSeconds:    d("build_duration_seconds", "How long builds took, failed ones too.", sec...),
		requests:        d("requests_total", "Requests for a document, by cache result: hit, miss or stale.", "section", "result"),
		responses:       d("responses_total", "Responses by status code: 304, 404 and 503.", "section", "code"),
		rejected:        d("rejected_urls_total", "URLs skipped, by the field that broke a rule, or page_full.", "section", "reason"),
		dropped:         d("dropped_elements_total", "Elements left out of URLs written, by the field that broke a rule.", "section", "reason"),
		servedBytes:     d("served_bytes_total", "Response body bytes written.", sec...),
		cacheBytes:      d("cache_bytes", "Compressed bytes of the cached documents.", sec...),
		cacheItems:      d("cache_entries", "Documents in the cache.", sec...),
		revalidated:     d("revalidations_total", "Expired pages renewed without a rebuild."),
		corrected:       d("corrected_urls_total", "URLs written with a correction."),
		indexNowURLs:    d("indexnow_urls_total", "IndexNow URLs by result: sent, dropped or refused.", "result"),
		indexNowFailed:  d("indexnow_failed_batches_total", "IndexNow batches an endpoint refused, dropped."),
		indexNowRetried: d("indexnow_retries_total", "IndexNow posts that failed and will be retried."),
		store:           d("store_documents_total", "Documents taken from the shared store (hit), and builds that waited for another replica's (wait).", "result"),
		storeErrors:     d("store_errors_total", "Shared store calls that failed, and stored values that did not decode."),
		storeDown:       d("store_down", "1 while the shared store is not called and the replica serves alone."),
		auditURLs:       d("audit_urls_total", "Self-audit URLs by result: checked in process, or skipped (over the rate, or off the site).", "result"),
		auditFindings:   d("audit_findings_total", "Self-audit findings by kind: status, redirect, noindex, canonical, robots, error, lastmod_behind, lastmod_ahead.", "kind"),
		auditLeftOut:    d("audit_left_out_urls", "URLs the self-audit leaves out of the sitemap files now: noindex, or canonicalised to another URL."),
		fileFinds:       d("audit_file_findings", "Findings of each sitemap file's last self-audit, by kind.", "file", "kind"),
		crawlLast:       d("crawler_last_fetch_timestamp_seconds", "When each crawler family last fetched each sitemap file, in Unix seconds.", "section", "file", "crawler", "verified"),
		crawlFetches:    d("crawler_fetches_total", "Fetches of the section's files by crawler family and status code.", "section", "crawler", "verified", "code"),
		crawlForbidden:  d("crawler_forbidden_total", "403s to clients that are not verified crawlers."),
		crawlUnlogged:   d("crawl_log_unlogged_total", "Fetches of files the full crawl log could not keep."),
		crawlClaims:     d("crawler_claims_total", "Fetches by crawlers of each purpose, by check: verified, spoofed or unverifiable.", "purpose", "check"),
	}
}

// claim is a series of crawler_claims_total.
type claim struct{ purpose, check string }

// check is a crawl log column's check label.
func check(verified, spoofed bool) string {
	switch {
	case verified:
		return "verified"
	case spoofed:
		return "spoofed"
	}
	return "unverifiable"
}

// Describe sends the descriptors of every metric.
func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{
		c.builds, c.buildErrors, c.buildSeconds, c.requests, c.responses, c.rejected, c.dropped,
		c.servedBytes, c.cacheBytes, c.cacheItems, c.revalidated, c.corrected,
		c.indexNowURLs, c.indexNowFailed, c.indexNowRetried, c.store, c.storeErrors, c.storeDown,
		c.auditURLs, c.auditFindings, c.fileFinds, c.auditLeftOut,
		c.crawlLast, c.crawlFetches, c.crawlForbidden, c.crawlUnlogged, c.crawlClaims,
	} {
		ch <- d
	}
}

// Collect sends the current value of every metric.
func (c *collector) Collect(ch chan<- prometheus.Metric) {
	counter := func(d *prometheus.Desc, v int64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
	}
	gauge := func(d *prometheus.Desc, v int64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, float64(v), labels...)
	}
	claims := map[claim]int64{} // crawler_claims_total, summed over the sections
	for _, st := range c.sm.SectionStats() {
		s := st.Section
		counter(c.builds, st.Builds, s)
		counter(c.buildErrors, st.BuildErrors, s)
		h := st.BuildSeconds
		buckets := make(map[float64]uint64, len(c.buckets))
		for i, le := range c.buckets {
			buckets[le] = h.Buckets[i]
		}
		ch <- prometheus.MustNewConstHistogram(c.buildSeconds, h.Count, h.Sum, buckets, s)
		counter(c.requests, st.CacheHits, s, "hit")
		counter(c.requests, st.CacheMisses, s, "miss")
		counter(c.requests, st.CacheStale, s, "stale")
		for code, n := range map[int]int64{304: st.NotModified, 404: st.NotFound, 503: st.Unavailable} {
			counter(c.responses, n, s, strconv.Itoa(code))
		}
		for reason, n := range st.RejectedURLs {
			counter(c.rejected, n, s, reason)
		}
		for reason, n := range st.DroppedElements {
			counter(c.dropped, n, s, reason)
		}
		counter(c.servedBytes, st.BytesServed, s)
		gauge(c.cacheBytes, st.CachedBytes, s)
		gauge(c.cacheItems, int64(st.CachedDocuments), s)
		for _, f := range st.CrawlCounts {
			code := "other"
			if f.Status != 0 {
				code = strconv.Itoa(f.Status)
			}
			counter(c.crawlFetches, f.Fetches, s, f.Crawler, strconv.FormatBool(f.Verified), code)
			if f.Purpose != "" {
				claims[claim{f.Purpose, check(f.Verified, f.Spoofed)}] += f.Fetches
			}
		}
	}
	for k, n := range claims {
		counter(c.crawlClaims, n, k.purpose, k.check)
	}
	for _, fc := range c.sm.CrawlLog() {
		for _, f := range fc.Crawls {
			if f.Spoofed {
				continue
			}
			ch <- prometheus.MustNewConstMetric(c.crawlLast, prometheus.GaugeValue,
				float64(f.Time.UnixNano())/1e9, fc.Section, fc.File, f.Crawler, strconv.FormatBool(f.Verified))
		}
	}
	st := c.sm.Stats()
	counter(c.revalidated, st.Revalidated)
	counter(c.corrected, st.CorrectedURLs)
	counter(c.indexNowURLs, st.IndexNowSent, "sent")
	counter(c.indexNowURLs, st.IndexNowDropped, "dropped")
	counter(c.indexNowURLs, st.IndexNowRefused, "refused")
	counter(c.indexNowFailed, st.IndexNowFailed)
	counter(c.indexNowRetried, st.IndexNowRetried)
	counter(c.store, st.StoreHits, "hit")
	counter(c.store, st.StoreWaits, "wait")
	counter(c.storeErrors, st.StoreErrors)
	down := int64(0)
	if st.StoreDown {
		down = 1
	}
	gauge(c.storeDown, down)
	a := c.sm.Audit()
	counter(c.auditURLs, a.Checked, "checked")
	counter(c.auditURLs, a.Skipped, "skipped")
	for kind, n := range a.Findings {
		counter(c.auditFindings, n, kind)
	}
	for _, f := range a.Files {
		for kind, n := range f.Findings {
			gauge(c.fileFinds, int64(n), f.File, kind)
		}
	}
	gauge(c.auditLeftOut, a.LeftOut)
	counter(c.crawlForbidden, st.CrawlerForbidden)
	counter(c.crawlUnlogged, st.CrawlLogFull)
}
