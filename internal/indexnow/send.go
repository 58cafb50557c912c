package indexnow

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// LogBody bounds the part of an error response that is logged.
const LogBody = 512

// run is the goroutine of one lane: it waits for URLs, gathers them for
// the delay, then posts batches until the queue is empty, retrying what
// failed. It ends at close, once the queue is empty or close's context
// ended.
func (n *Sender) run(l *lane) {
	defer n.wg.Done()
	for {
		for l.len() == 0 {
			select {
			case <-l.wake:
			case <-n.closing:
				if l.len() == 0 {
					return
				}
			case <-n.ctx.Done():
				return
			}
		}
		n.gather(l)
		if !n.drain(l) {
			return
		}
	}
}

// gather waits for the batch delay, or until a full batch is queued or
// close asks for a flush.
func (n *Sender) gather(l *lane) {
	if n.delay <= 0 {
		return
	}
	t := time.NewTimer(n.delay)
	defer t.Stop()
	for l.len() < Batch {
		select {
		case <-t.C:
			return
		case <-l.wake:
		case <-n.closing:
			return
		case <-n.ctx.Done():
			return
		}
	}
}

// drain posts batches until the queue is empty (true) or the sender is
// stopped (false). A batch that may be retried stays at the head of the
// queue; after a wait, it is posted again with whatever joined it.
func (n *Sender) drain(l *lane) bool {
	attempt := 0
	for {
		batch := l.peek(Batch)
		if len(batch) == 0 {
			return true
		}
		retry, after := n.post(l.endpoint, batch)
		if n.ctx.Err() != nil {
			return false // close gave up: the batch is counted as dropped
		}
		if !retry {
			if dropped := l.remove(len(batch)); dropped > 0 {
				n.log.Warn("sitemap: indexnow: queue has room again", "endpoint", l.endpoint, "dropped", dropped)
			}
			attempt = 0
			continue
		}
		attempt++
		n.Retried.Add(1)
		d := n.backoff(attempt, after)
		n.log.Warn("sitemap: indexnow: batch will be retried", "endpoint", l.endpoint, "urls", len(batch), "attempt", attempt, "in", d)
		if !n.sleep(n.ctx, d) {
			return false
		}
	}
}

// request is the body of a POST, fields in the protocol's order.
type request struct {
	Host        string   `json:"host"`
	Key         string   `json:"key"`
	KeyLocation string   `json:"keyLocation"`
	URLList     []string `json:"urlList"`
}

// post sends one batch to endpoint. It reports whether the batch is to be
// retried (429, 5xx, a network error), and the wait the endpoint asked
// for with Retry-After (0 if none). Any 2xx is success, counted in sent.
// Any other status (400 bad request, 403 key not valid, 422 URLs not of
// the host, a redirect, 404, …) is a refusal: logged with the start of the
// response body, counted in failed, and the batch is dropped.
func (n *Sender) post(endpoint string, batch []string) (retry bool, after time.Duration) {
	var body bytes.Buffer
	enc := json.NewEncoder(&body)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(request{Host: n.host, Key: n.key, KeyLocation: n.keyLocation, URLList: batch}); err != nil {
		panic(err) // strings always encode
	}
	req, err := http.NewRequestWithContext(n.ctx, http.MethodPost, endpoint, &body)
	if err != nil {
		panic(err) // the endpoint was checked by New
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	resp, err := n.client.Do(req)
	if err != nil {
		if n.ctx.Err() == nil {
			n.log.Warn("sitemap: indexnow: post failed", "endpoint", endpoint, "urls", len(batch), "err", err)
		}
		return true, 0
	}
	defer resp.Body.Close()
	text, _ := io.ReadAll(io.LimitReader(resp.Body, LogBody))
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // so that the connection is reused
	code := resp.StatusCode
	switch {
	case code >= 200 && code < 300:
		n.Sent.Add(int64(len(batch)))
		n.log.Debug("sitemap: indexnow: batch accepted", "endpoint", endpoint, "urls", len(batch), "status", code)
		return false, 0
	case code == http.StatusTooManyRequests || code >= 500:
		n.log.Warn("sitemap: indexnow: endpoint busy", "endpoint", endpoint, "status", code,
			"retry_after", resp.Header.Get("Retry-After"), "body", string(text))
		return true, retryAfter(resp.Header.Get("Retry-After"), n.now())
	default:
		n.Failed.Add(1)
		n.log.Error("sitemap: indexnow: batch refused", "endpoint", endpoint, "urls", len(batch), "status", code, "body", string(text))
		return false, 0
	}
}

// retryAfter parses a Retry-After value, seconds or an HTTP date, into a
// wait from now; 0 if there is none, it is malformed or already past.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		return time.Duration(min(secs, int64(365*24*time.Hour/time.Second))) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// backoff is the wait before retry number attempt (from 1): the endpoint's
// Retry-After if it gave one, else 10 s doubling each attempt, with
// jitter (between half and all of it); both at most maxBackoff.
func (n *Sender) backoff(attempt int, after time.Duration) time.Duration {
	if after > 0 {
		return min(after, n.maxBackoff)
	}
	d := min(firstBackoff<<min(attempt-1, 20), n.maxBackoff)
	return d/2 + rand.N(d/2+1)
}

// sleep waits d, or returns false if ctx ends first.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
