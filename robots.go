package sitemap

import "net/http"

// Temporary stand-in so the package builds; robots.go proper is being written.
type robots struct{ lines []string }

func newRobots(lines []string) *robots { return &robots{lines: lines} }

func (rb *robots) serve(w http.ResponseWriter, r *http.Request, next http.Handler) {
	http.Error(w, "not yet", http.StatusNotImplemented)
}
