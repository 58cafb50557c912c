package audit

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/pagecheck"
)

// TestAuditRecorder: the headers are those sent with the status; the body
// keeps its first HeadBytes, the write that passes them fails, and so does
// every write after, or after close.
func TestAuditRecorder(t *testing.T) {
	w := newAuditRecorder()
	w.Header().Set("X-Robots-Tag", "noindex")
	w.WriteHeader(http.StatusEarlyHints) // informational: not the answer
	w.WriteHeader(http.StatusNotFound)
	w.Header().Set("X-Late", "1") // after the status: never sent
	chunk := make([]byte, 64<<10)
	for range pagecheck.HeadBytes / len(chunk) {
		if n, err := w.Write(chunk); n != len(chunk) || err != nil {
			t.Fatalf("Write within the limit: %d, %v", n, err)
		}
	}
	select {
	case <-w.full:
		t.Fatal("full at the limit, before a write passed it")
	default:
	}
	if n, err := w.Write([]byte("x")); n != 0 || !errors.Is(err, errAuditFull) {
		t.Errorf("Write past the limit: %d, %v; want 0, errAuditFull", n, err)
	}
	<-w.full
	if n, err := w.Write([]byte("x")); n != 0 || !errors.Is(err, errAuditClosed) {
		t.Errorf("Write after the limit: %d, %v; want 0, errAuditClosed", n, err)
	}
	ans, err := w.answer(time.Second)
	if err != nil || ans.status != http.StatusNotFound || len(ans.body) != pagecheck.HeadBytes || ans.sent.Get("X-Late") != "" || ans.sent.Get("X-Robots-Tag") != "noindex" {
		t.Errorf("answer: %v; status %d, %d bytes kept, sent headers %v", err, ans.status, len(ans.body), ans.sent)
	}

	part := newAuditRecorder()
	if n, err := part.Write(make([]byte, 100<<10)); n != 100<<10 || err != nil {
		t.Fatalf("Write: %d, %v", n, err)
	}
	if n, err := part.Write(make([]byte, 200<<10)); n != pagecheck.HeadBytes-100<<10 || !errors.Is(err, errAuditFull) {
		t.Errorf("a write across the limit: %d, %v; want the room left and errAuditFull", n, err)
	}
	closed := newAuditRecorder()
	closed.close()
	if n, err := closed.Write([]byte("x")); n != 0 || !errors.Is(err, errAuditClosed) {
		t.Errorf("Write after close: %d, %v", n, err)
	}
	if _, err := closed.answer(time.Second); err == nil || !strings.Contains(err.Error(), "no answer within 1s") {
		t.Errorf("no write and no return: %v, want no answer", err)
	}
}
