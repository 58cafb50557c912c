package demo

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/internal/memstat"
)

// serve serves h on ln until ctx is done, SIGINT or SIGTERM; with -crawl
// it instead crawls the sitemap once, prints the figures to out and
// returns.
func serve(ctx context.Context, ln net.Listener, h http.Handler, sm *sitemap.Sitemap, o Options, out io.Writer, log *slog.Logger) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	if o.Crawl {
		err := crawlAndReport(ctx, o.Base, sm, out)
		srv.Close()
		<-errc
		return err
	}
	printURLs(h, o.Base, out, log)
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// printURLs builds the sitemap index once, in process, which also shows a
// mistake in a Source at start-up, and prints the URLs worth opening: the
// shop, robots.txt, the index and the first file of each section.
func printURLs(h http.Handler, base string, out io.Writer, log *slog.Logger) {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/sitemap_index.xml", nil))
	var idx struct {
		Locs []string `xml:"sitemap>loc"`
	}
	if rec.Code != http.StatusOK || xml.Unmarshal(rec.Body.Bytes(), &idx) != nil {
		log.Error("the sitemap index does not build; see the log above", "status", rec.Code)
		return
	}
	fmt.Fprint(out, "Serving the demo shop; open:\n")
	fmt.Fprintf(out, "  %-48s the shop\n", base+"/")
	fmt.Fprintf(out, "  %-48s its robots.txt, with the Sitemap: line merged in\n", base+"/robots.txt")
	fmt.Fprintf(out, "  %-48s the sitemap index (%d files)\n", base+"/sitemap_index.xml", len(idx.Locs))
	fmt.Fprintf(out, "  %-48s the same, as HTML for people (each file has one too)\n", base+"/sitemap_index.html")
	seen := map[string]bool{}
	for _, loc := range idx.Locs {
		file := strings.TrimSuffix(loc, ".gz") // the .xml form opens in a browser
		section := file[:strings.LastIndexByte(file, '-')]
		if !seen[section] {
			seen[section] = true
			fmt.Fprintf(out, "  %-48s a sitemap file (also as %s)\n", file, loc[strings.LastIndexByte(loc, '/')+1:])
		}
	}
	fmt.Fprint(out, "Ctrl-C stops it.\n")
}

// crawlAndReport crawls the site at base once, as a search engine would,
// and prints time, sizes and memory.
func crawlAndReport(ctx context.Context, base string, sm *sitemap.Sitemap, out io.Writer) error {
	startPeak := memstat.PeakRSS()
	runtime.GC()
	debug.FreeOSMemory()
	memstat.ResetPeak()
	client := &http.Client{Timeout: 10 * time.Minute}
	rep, err := Crawl(ctx, client, base, nil)
	if err != nil {
		return err
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	st := sm.Stats()
	fmt.Fprintf(out, "crawl: robots.txt, the index and %d sitemap files with %d URLs in %v\n", rep.Files, rep.URLs, rep.Took.Round(time.Millisecond))
	fmt.Fprintf(out, "  bytes:   %s received (gzip), %s of XML\n", mb(rep.WireBytes), mb(rep.XMLBytes))
	fmt.Fprintf(out, "  builds:  %d documents built in %v, %d cached (%s)\n", st.Builds, st.BuildTime.Round(time.Millisecond), st.CachedDocuments, mb(st.CachedBytes))
	fmt.Fprintf(out, "  memory:  peak RSS %s during the crawl (%s before it), Go heap in use %s, total allocated %s\n",
		mb(memstat.PeakRSS()), mb(startPeak), mb(int64(ms.HeapInuse)), mb(int64(ms.TotalAlloc)))
	return nil
}

func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }
