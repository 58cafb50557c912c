package sitemap

import (
	"context"
	"errors"
)

// A page said to have changed is rebuilt from the index read before the
// change (one change, one read: invalidate.go), so the change time that
// index shows is older than the bytes read. With a PageReporter, the
// rebuild looks at the page before and after reading its URLs: when both
// looks show the same Version and the same settled change time, nothing
// changed between them, and the bytes are exactly those of that change
// time. They then get the clock a restart gives them (clock.go, rule 5),
// with no second read of the page or the index
// (TestToldPageExactClock, TestToldPageChangedBetweenLooks).

// pageLook is what a rebuild saw of its page before reading its URLs.
type pageLook struct {
	src    PageReporter // nil if there is no look to compare
	before PageInfo
}

// lookBefore looks at page n of src before a rebuild reads it, if src
// reports one page's PageInfo. A look that shows no settled change time
// leaves the rebuild to the other rules; so does one that fails, whose
// error it returns (nil for a Source that keeps no change time).
func lookBefore(ctx context.Context, src Source, n int64) (pageLook, error) {
	r, ok := src.(PageReporter)
	if !ok {
		return pageLook{}, nil
	}
	info, err := r.PageInfo(ctx, n)
	switch {
	case errors.Is(err, errors.ErrUnsupported):
		return pageLook{}, nil
	case err != nil:
		return pageLook{}, err
	case info.Number != n || info.Version == "" || info.Changed.IsZero():
		return pageLook{}, nil
	}
	return pageLook{src: r, before: info}, nil
}

// after looks at page n again, its URLs read, and reports whether it
// shows what the look before did: the bytes read are those of that
// PageInfo.
func (l pageLook) after(ctx context.Context, n int64) bool {
	if l.src == nil {
		return false
	}
	info, err := l.src.PageInfo(ctx, n)
	return err == nil && info.Number == n && info.Version == l.before.Version &&
		info.Changed.Equal(l.before.Changed) && info.LastMod.Equal(l.before.LastMod)
}
