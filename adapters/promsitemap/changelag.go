package promsitemap

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// ChangeLag is the state of a change feed that a Watcher reads, such as
// the WatchStats of an sqlsource.Source, for NewChangeLag.
type ChangeLag struct {
	// Reading says this process reads the feed now (with logical
	// decoding, false while another replica holds the slot).
	Reading bool
	// Applied and Resyncs count the changes applied, and the times every
	// page was counted again, by this process's Watcher.
	Applied, Resyncs int64
	// Pending is the changes waiting in a change table.
	Pending int64
	// Lag is the age of the oldest change not yet applied.
	Lag time.Duration
	// LagBytes and RetainedBytes are, with logical decoding, the WAL the
	// slot has yet to confirm and the WAL the server keeps for it.
	LagBytes, RetainedBytes int64
	// WALStatus is, with logical decoding, the slot's wal_status:
	// reserved, extended, unreserved or lost; "" for none.
	WALStatus string
}

// scrapeTimeout bounds a read of a change feed's state at a scrape.
const scrapeTimeout = 5 * time.Second

// changeLag is the prometheus.Collector of one change feed.
type changeLag struct {
	feed string
	read func(context.Context) (ChangeLag, error)

	up, reading, applied, resyncs, pending *prometheus.Desc
	lag, lagBytes, retained, walStatus     *prometheus.Desc
}

// NewChangeLag returns a collector of the state of a change feed, read by
// read at each scrape (with a 5 s timeout) and labelled feed="name":
//
//	reg.MustRegister(promsitemap.NewChangeLag("products", func(ctx context.Context) (promsitemap.ChangeLag, error) {
//		st, err := src.WatchStats(ctx) // src is an *sqlsource.Source
//		return promsitemap.ChangeLag{Reading: st.Reading, Applied: st.Applied, Resyncs: st.Resyncs, Pending: st.Pending,
//			Lag: st.Lag, LagBytes: st.LagBytes, RetainedBytes: st.RetainedBytes, WALStatus: st.WALStatus}, err
//	}))
//
// The metrics, all prefixed sitemap_change_, are:
//
//	up{feed}                       1 if the feed's state was read at this scrape, else 0 (and no other series)
//	reading{feed}                  1 while this process reads the feed, else 0
//	applied_total{feed}            changes this process's Watcher applied
//	resyncs_total{feed}            times it counted every page again (a new slot, a TRUNCATE)
//	pending{feed}                  changes waiting in a change table
//	lag_seconds{feed}              age of the oldest change not yet applied
//	lag_bytes{feed}                logical decoding: WAL the slot has yet to confirm
//	retained_bytes{feed}           logical decoding: WAL the server keeps for the slot
//	slot_wal_status{feed,status}   logical decoding: 1 for the slot's wal_status
//
// A slot that nobody reads retains the server's WAL, for every table,
// until max_slot_wal_keep_size (if set) makes the server drop it
// (wal_status lost): alert on retained_bytes and on a status other than
// reserved.
func NewChangeLag(feed string, read func(context.Context) (ChangeLag, error)) prometheus.Collector {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc("sitemap_change_"+name, help, append([]string{"feed"}, labels...), nil)
	}
	return &changeLag{
		feed:      feed,
		read:      read,
		up:        d("up", "1 if the change feed's state was read at this scrape, else 0."),
		reading:   d("reading", "1 while this process reads the change feed, else 0."),
		applied:   d("applied_total", "Changes this process's Watcher applied."),
		resyncs:   d("resyncs_total", "Times this process's Watcher counted every page again."),
		pending:   d("pending", "Changes waiting in the change table."),
		lag:       d("lag_seconds", "Age of the oldest change not yet applied."),
		lagBytes:  d("lag_bytes", "WAL the replication slot has yet to confirm."),
		retained:  d("retained_bytes", "WAL the server keeps for the replication slot."),
		walStatus: d("slot_wal_status", "1 for the replication slot's wal_status.", "status"),
	}
}

// Describe sends the descriptors of every metric.
func (c *changeLag) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.up, c.reading, c.applied, c.resyncs, c.pending, c.lag, c.lagBytes, c.retained, c.walStatus} {
		ch <- d
	}
}

// Collect reads the feed's state and sends it.
func (c *changeLag) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	l, err := c.read(ctx)
	send := func(d *prometheus.Desc, t prometheus.ValueType, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, t, v, append([]string{c.feed}, labels...)...)
	}
	if err != nil {
		send(c.up, prometheus.GaugeValue, 0)
		return
	}
	send(c.up, prometheus.GaugeValue, 1)
	send(c.reading, prometheus.GaugeValue, b2f(l.Reading))
	send(c.applied, prometheus.CounterValue, float64(l.Applied))
	send(c.resyncs, prometheus.CounterValue, float64(l.Resyncs))
	send(c.pending, prometheus.GaugeValue, float64(l.Pending))
	send(c.lag, prometheus.GaugeValue, l.Lag.Seconds())
	send(c.lagBytes, prometheus.GaugeValue, float64(l.LagBytes))
	send(c.retained, prometheus.GaugeValue, float64(l.RetainedBytes))
	if l.WALStatus != "" {
		send(c.walStatus, prometheus.GaugeValue, 1, l.WALStatus)
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
