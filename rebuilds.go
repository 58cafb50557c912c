package sitemap

import "github.com/freshmap/sitemap/internal/rebuild"

// rebuilds runs the rebuilds that Invalidate asks for, in the background
// (internal/rebuild, whose rules each name their test): at most one
// waiting per document, each at most once a second, the index after the
// pages, at most max at once on workers that exist only while there is
// work, until done is closed.
type rebuilds struct{ q *rebuild.Queue[docKey] }

func newRebuilds(max int, start func(func()) bool, build func(docKey), done <-chan struct{}) *rebuilds {
	return &rebuilds{rebuild.New(max, indexKey, start, build, done)}
}

// ask asks for a rebuild of each of pages, then of the index.
func (r *rebuilds) ask(pages []docKey) { r.q.Ask(pages) }

// waiting returns how many documents wait for a rebuild and how many are
// being rebuilt.
func (r *rebuilds) waiting() (waiting, building int) { return r.q.Waiting() }
