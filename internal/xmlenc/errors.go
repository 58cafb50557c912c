package xmlenc

import (
	"errors"

	"github.com/freshmap/sitemap/urlset"
)

// Rules a field may break, wrapped in an *InvalidURLError.
var (
	ErrYear        = errors.New("year outside 0001-9999")
	ErrChangeFreq  = errors.New("not one of always, hourly, daily, weekly, monthly, yearly, never")
	ErrPriority    = errors.New("outside 0.0-1.0")
	ErrRequired    = errors.New("required")
	ErrTooMany     = errors.New("too many")
	ErrLength      = errors.New("too long")
	ErrRange       = errors.New("out of range")
	ErrValue       = errors.New("not an allowed value")
	ErrUndeclared  = errors.New("extension not declared by the section")
	ErrNeedsPlayer = errors.New("needs content_loc or player_loc")
)

// Invalid returns the *urlset.InvalidURLError of u's field that breaks
// the rule err.
func Invalid(u *urlset.URL, field string, err error) error {
	return &urlset.InvalidURLError{Loc: u.Loc, Field: field, Err: err}
}
