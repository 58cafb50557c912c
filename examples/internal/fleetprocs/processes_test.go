package fleetprocs_test

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"iter"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/redisstore"
	"github.com/freshmap/sitemap/adapters/sqlsource"
	"github.com/freshmap/sitemap/internal/testkit"
	"github.com/redis/go-redis/v9"

	_ "modernc.org/sqlite" // the replicas' shared catalogue
)

// Replicas as separate processes: the test binary started again with
// envReplica set runs one replica of a site (replicaMain) on a shared
// SQLite catalogue and the test Redis, and serves it on a loopback port
// until its standard input closes. Nothing is shared between the
// replicas but the catalogue file and Redis, as between the machines of
// a deployment.

const (
	envReplica       = "SITEMAP_TEST_REPLICA"        // the catalogue file: run as a replica
	envReplicaPrefix = "SITEMAP_TEST_REPLICA_PREFIX" // the Store's key prefix
	envReplicaMode   = "SITEMAP_TEST_REPLICA_MODE"   // the replica's Source and settings (replicaModes)
	// envLongQuiet, set (as .ci/run does), adds a minute's quiet to
	// TestProcessesHeardChange.
	envLongQuiet = "SITEMAP_TEST_LONG_QUIET"
)

// replicaPages is how many pages of 50 items the catalogue has.
const replicaPages = 10

// replicaModes are the ways TestProcessesHeardChange runs its replicas:
//   - "defaults": sqlsource on the items table, the Config's defaults;
//   - "range": a FromRange Source on the items table (no page Versions or
//     lastmods in the index), the Config's defaults;
//   - "demo": the demo's settings: sqlsource with its page summary and
//     change table, watched on every replica (Watch), a named section,
//     Audit, HTML, a clock file and a feed;
//   - "ttl": "defaults" with a TTL of 3 s, shorter than the longest quiet:
//     the first GET after it found the new copy in Redis past its TTL,
//     and served the old one instead (before fleet.newer took it).
var replicaModes = []string{"defaults", "range", "demo", "ttl"}

// replicaSource is the replicas' Source in mode on the catalogue db.
func replicaSource(db *sql.DB, mode string) (sitemap.Source, error) {
	if mode == "range" {
		return sitemap.FromRange(func(ctx context.Context) (n int64, err error) {
			err = db.QueryRowContext(ctx, `SELECT count(*) FROM items`).Scan(&n)
			return n, err
		}, func(ctx context.Context, lo, hi int64) iter.Seq2[sitemap.URL, error] {
			return func(yield func(sitemap.URL, error) bool) {
				rows, err := db.QueryContext(ctx, `SELECT id, name FROM items ORDER BY id LIMIT ? OFFSET ?`, hi-lo, lo)
				if err != nil {
					yield(sitemap.URL{}, err)
					return
				}
				defer rows.Close()
				for rows.Next() {
					var id int64
					var name string
					if err := rows.Scan(&id, &name); err != nil {
						yield(sitemap.URL{}, err)
						return
					}
					if !yield(sitemap.URL{Loc: "https://example.com/p/" + strconv.FormatInt(id, 10) + "/" + name}, nil) {
						return
					}
				}
				if err := rows.Err(); err != nil {
					yield(sitemap.URL{}, err)
				}
			}
		}, 50), nil
	}
	return sqlsource.New(db, sqlsource.Config{Table: "items", Key: "id", LocTemplate: "https://example.com/p/{id}/{name}",
		LastMod: "updated", PageSize: 50, Dialect: sqlsource.SQLite, Summary: mode == "demo"})
}

// replicaSection is the name of the replicas' section in mode: the
// demo's, or none.
func replicaSection(mode string) string {
	if mode == "demo" {
		return "products"
	}
	return ""
}

// replicaConfig is the Config of a replica on store; dir is for its
// clock file.
func replicaConfig(store sitemap.Store, mode string, dir string) sitemap.Config {
	cfg := sitemap.Config{BaseURL: "https://example.com", Store: store}
	if mode == "ttl" {
		cfg.TTL = 3 * time.Second
	}
	if mode == "demo" {
		cfg.Audit, cfg.HTML, cfg.FeedEntries = &sitemap.Audit{}, true, 100
		cfg.ClockFile = filepath.Join(dir, "clocks")
	}
	return cfg
}

// replicaMain runs this process as a replica; it returns when standard
// input closes (the test ended, or died).
func replicaMain() error {
	dbPath := os.Getenv(envReplica)
	db, err := sql.Open("sqlite", dbPath+"?_pragma=busy_timeout(5000)")
	if err != nil {
		return err
	}
	defer db.Close()
	mode := os.Getenv(envReplicaMode)
	src, err := replicaSource(db, mode)
	if err != nil {
		return err
	}
	client := redis.NewClient(&redis.Options{Addr: os.Getenv(envRedis), ContextTimeoutEnabled: true})
	defer client.Close()
	store, err := redisstore.New(client, redisstore.Options{Prefix: os.Getenv(envReplicaPrefix)})
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "sitemap-replica-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	sm, err := sitemap.New(replicaConfig(store, mode, dir), sitemap.Section{Name: replicaSection(mode), Source: src})
	if err != nil {
		return err
	}
	defer sm.Close()
	if mode == "demo" { // every replica watches the catalogue, as the demo's do
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		w, err := src.(*sqlsource.Source).Watch(ctx, sm, "products")
		if err != nil {
			return err
		}
		defer w.Close()
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /p/", func(http.ResponseWriter, *http.Request) {}) // the pages the audit checks
	mux.HandleFunc("POST /invalidate", func(w http.ResponseWriter, r *http.Request) {
		page, err := strconv.ParseInt(r.FormValue("page"), 10, 64)
		if err == nil {
			err = sm.Invalidate(replicaSection(mode), page)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
		}
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: sm.Handler(mux)}
	go srv.Serve(ln)
	defer srv.Close()
	fmt.Printf("listening %s\n", ln.Addr())
	io.Copy(io.Discard, os.Stdin)
	return nil
}

// process is a replica running in a process of its own.
type process struct {
	addr  string
	cmd   *exec.Cmd
	stdin io.WriteCloser
}

// startReplica starts a replica process on the catalogue dbPath, with the
// Store's key prefix prefix, and waits until it listens. It is stopped
// when t ends.
func startReplica(t *testing.T, dbPath, prefix, mode string) *process {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), envReplica+"="+dbPath, envReplicaPrefix+"="+prefix, envReplicaMode+"="+mode)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &process{cmd: cmd, stdin: stdin}
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Errorf("replica %s did not end within 10 s of its input closing; killed", p.addr)
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening ")
	if err != nil || !ok {
		t.Fatalf("replica process: %q, %v", line, err)
	}
	p.addr = addr
	return p
}

// get fetches path from the replica, and returns its status and body,
// gunzipped if it is a .gz file.
func (p *process) get(t *testing.T, path string) (int, []byte) {
	t.Helper()
	resp, err := http.Get("http://" + p.addr + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode == http.StatusOK && strings.HasSuffix(path, ".gz") {
		b = testkit.Gunzip(t, b)
	}
	return resp.StatusCode, b
}

// createCatalogue creates the items table in a new SQLite file under
// t's temporary directory, with replicaPages pages of 50 items.
func createCatalogue(t *testing.T, mode string) (*sql.DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "catalogue.db")
	db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(`CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, updated TIMESTAMP NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	at := time.Now().Add(-time.Hour).UTC().Truncate(time.Second)
	for i := 1; i <= 50*replicaPages; i++ {
		if _, err := db.Exec(`INSERT INTO items (id, name, updated) VALUES (?, ?, ?)`, i, "item-"+strconv.Itoa(i), at); err != nil {
			t.Fatal(err)
		}
	}
	if mode == "demo" {
		src, err := replicaSource(db, mode)
		if err == nil {
			err = src.(*sqlsource.Source).InstallSummary(context.Background())
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return db, path
}

// freshBuild returns the bytes of path as a new Sitemap without a Store
// builds them from the catalogue db now, with the Source of mode.
func freshBuild(t *testing.T, db *sql.DB, mode, path string) []byte {
	t.Helper()
	src, err := replicaSource(db, mode)
	if err != nil {
		t.Fatal(err)
	}
	sm, err := sitemap.New(sitemap.Config{BaseURL: "https://example.com"}, sitemap.Section{Source: src})
	if err != nil {
		t.Fatal(err)
	}
	defer sm.Close()
	w := httptest.NewRecorder()
	sm.Handler(http.NotFoundHandler()).ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
	if w.Code != http.StatusOK {
		t.Fatalf("fresh build of %s: %d", path, w.Code)
	}
	return testkit.Gunzip(t, w.Body.Bytes())
}

// TestProcessesHeardChange: three replicas in three processes on one
// Redis (default Options) and one SQLite catalogue; a page changes and
// Invalidate is called on replica 1 alone. The first GET on every replica
// after 0.5, 2 and 10 seconds of quiet serves the bytes a fresh build
// makes, never the old ones: each quiet after a change of its own, then
// every quiet in turn after one change (and, in the demo mode with
// SITEMAP_TEST_LONG_QUIET set, a minute more); in each of replicaModes.
func TestProcessesHeardChange(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three processes and waits for seconds")
	}
	quiets := []time.Duration{500 * time.Millisecond, 2 * time.Second, 10 * time.Second}
	for _, mode := range replicaModes {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			_, prefix := redisClient(t)
			db, path := createCatalogue(t, mode)
			var ps []*process
			for range 3 {
				ps = append(ps, startReplica(t, path, prefix, mode))
			}
			const file = "/sitemap-4.xml.gz"
			name := "/sitemap-4.xml.gz"
			if mode == "demo" {
				name = "/sitemap-products-4.xml.gz"
			}
			for _, f := range files(50 * replicaPages) {
				if mode == "demo" && f != "/sitemap_index.xml" {
					f = strings.Replace(f, "sitemap-", "sitemap-products-", 1)
				}
				for i, p := range ps {
					if code, _ := p.get(t, f); code != http.StatusOK {
						t.Fatalf("replica %d %s: %d", i+1, f, code)
					}
				}
			}
			// A change of page 4, told to replica 1 alone; the bytes a
			// fresh build makes of it then.
			n := 0
			change := func() []byte {
				n++
				time.Sleep(1100 * time.Millisecond) // a new lastmod second
				if _, err := db.Exec(`UPDATE items SET name = ?, updated = ? WHERE id = 160`, "renamed-"+strconv.Itoa(n), time.Now().UTC().Truncate(time.Second)); err != nil {
					t.Fatal(err)
				}
				resp, err := http.PostForm("http://"+ps[0].addr+"/invalidate", map[string][]string{"page": {"4"}})
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					t.Fatalf("Invalidate on replica 1: %d", resp.StatusCode)
				}
				return freshBuild(t, db, mode, file)
			}
			check := func(want []byte, quiet time.Duration, what string) {
				t.Helper()
				time.Sleep(quiet)
				for i, p := range ps {
					if _, got := p.get(t, name); !bytes.Equal(got, want) {
						t.Errorf("%s: replica %d, first GET after %v of quiet: not the bytes of a fresh build (the old name: %v); first difference:\n%s",
							what, i+1, quiet, !bytes.Contains(got, []byte("renamed-"+strconv.Itoa(n)+"<")), firstDiff(got, want))
					}
				}
			}
			for _, q := range quiets {
				check(change(), q, "a change of its own")
			}
			want := change()
			for _, q := range quiets {
				check(want, q, "one change")
			}
			if mode == "demo" && os.Getenv(envLongQuiet) != "" {
				check(want, time.Minute, "one change")
			}
		})
	}
}

// firstDiff returns the first line in which got and want differ, as both
// have it.
func firstDiff(got, want []byte) string {
	g, w := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := range max(len(g), len(w)) {
		var gl, wl []byte
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if !bytes.Equal(gl, wl) {
			return fmt.Sprintf("line %d: got  %s\nline %d: want %s", i+1, gl, i+1, wl)
		}
	}
	return "none"
}
