package promsitemap_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap/adapters/promsitemap"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestChangeLag: each scrape reads the feed's state once and exports it
// under the feed's label; a read that fails exports up 0 and nothing else.
func TestChangeLag(t *testing.T) {
	reads := 0
	var fail error
	c := promsitemap.NewChangeLag("products", func(ctx context.Context) (promsitemap.ChangeLag, error) {
		reads++
		if _, ok := ctx.Deadline(); !ok {
			t.Error("read without a deadline")
		}
		return promsitemap.ChangeLag{Reading: true, Applied: 1200, Resyncs: 1, Lag: 1500 * time.Millisecond,
			LagBytes: 4096, RetainedBytes: 1 << 20, WALStatus: "reserved"}, fail
	})
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	want := `
# HELP sitemap_change_applied_total Changes this process's Watcher applied.
# TYPE sitemap_change_applied_total counter
sitemap_change_applied_total{feed="products"} 1200
# HELP sitemap_change_lag_bytes WAL the replication slot has yet to confirm.
# TYPE sitemap_change_lag_bytes gauge
sitemap_change_lag_bytes{feed="products"} 4096
# HELP sitemap_change_lag_seconds Age of the oldest change not yet applied.
# TYPE sitemap_change_lag_seconds gauge
sitemap_change_lag_seconds{feed="products"} 1.5
# HELP sitemap_change_pending Changes waiting in the change table.
# TYPE sitemap_change_pending gauge
sitemap_change_pending{feed="products"} 0
# HELP sitemap_change_reading 1 while this process reads the change feed, else 0.
# TYPE sitemap_change_reading gauge
sitemap_change_reading{feed="products"} 1
# HELP sitemap_change_resyncs_total Times this process's Watcher counted every page again.
# TYPE sitemap_change_resyncs_total counter
sitemap_change_resyncs_total{feed="products"} 1
# HELP sitemap_change_retained_bytes WAL the server keeps for the replication slot.
# TYPE sitemap_change_retained_bytes gauge
sitemap_change_retained_bytes{feed="products"} 1.048576e+06
# HELP sitemap_change_slot_wal_status 1 for the replication slot's wal_status.
# TYPE sitemap_change_slot_wal_status gauge
sitemap_change_slot_wal_status{feed="products",status="reserved"} 1
# HELP sitemap_change_up 1 if the change feed's state was read at this scrape, else 0.
# TYPE sitemap_change_up gauge
sitemap_change_up{feed="products"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want)); err != nil {
		t.Error(err)
	}
	if reads != 1 {
		t.Errorf("one scrape read the feed %d times, want 1", reads)
	}
	fail = errors.New("the database does not answer")
	want = `
# HELP sitemap_change_up 1 if the change feed's state was read at this scrape, else 0.
# TYPE sitemap_change_up gauge
sitemap_change_up{feed="products"} 0
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want)); err != nil {
		t.Error(err)
	}
}
