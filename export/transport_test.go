package export

import (
	"io"
	"net/http"
	"testing"
)

// TestHandlerTransport: any host reaches the handler, with the path, query
// and headers of the request, and the response comes back whole.
func TestHandlerTransport(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"x"`)
		w.WriteHeader(http.StatusTeapot)
		io.WriteString(w, r.URL.RequestURI()+" "+r.Header.Get("If-None-Match"))
	})
	req, _ := http.NewRequest(http.MethodGet, "https://example.com/a/b.xml?q=1", nil)
	req.Header.Set("If-None-Match", `"e"`)
	resp, err := (&http.Client{Transport: handlerTransport{h}}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusTeapot || string(body) != `/a/b.xml?q=1 "e"` || resp.Header.Get("ETag") != `"x"` {
		t.Errorf("got %d %q %q", resp.StatusCode, body, resp.Header.Get("ETag"))
	}
}
