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
// (TestToldPageExactClock).

// pageLook is what a rebuild saw of its page before reading its URLs.
type pageLook struct {
	src    PageReporter // nil if there is no look to compare
	before PageInfo
}

// lookBefore looks at page k of sec before its rebuild reads it, if the
// copy it replaces was said to have changed and its Source reports one
// page's PageInfo. A look that fails, or that shows no settled change
// time, leaves the rebuild to the other rules.
func (b pageBuilder) lookBefore(ctx context.Context, sec *section, k docKey, j job, isLatest bool) pageLook {
	src, ok := sec.src.(PageReporter)
	if !ok || isLatest || j.old == nil || j.current {
		return pageLook{}
	}
	info, err := src.PageInfo(ctx, k.page)
	if errors.Is(err, errors.ErrUnsupported) {
		return pageLook{}
	}
	if err != nil {
		b.rep.log.Debug("sitemap: looking at a page before its rebuild", "page", b.site.fileName(k), "err", err)
		return pageLook{}
	}
	if info.Number != k.page || info.Version == "" || info.Changed.IsZero() {
		return pageLook{}
	}
	return pageLook{src: src, before: info}
}

// after looks at page k again, its URLs read, and reports whether it shows
// what the look before did: the bytes read are those of that PageInfo.
func (l pageLook) after(ctx context.Context, k docKey) bool {
	if l.src == nil {
		return false
	}
	info, err := l.src.PageInfo(ctx, k.page)
	return err == nil && info.Number == k.page && info.Version == l.before.Version &&
		info.Changed.Equal(l.before.Changed) && info.LastMod.Equal(l.before.LastMod)
}
