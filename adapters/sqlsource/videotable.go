package sqlsource

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/freshmap/sitemap"
)

// VideoTable names a table that holds videos one row a video, for
// VideosFrom. Its names are written into the query as they are. Each
// column but Table, Key and the required ones is optional: "" for none.
type VideoTable struct {
	// Table is the table, or a subquery with an alias, such as
	// "(SELECT … ) AS v".
	Table string
	// Key is the column of the URL's key.
	Key string
	// Order orders a URL's videos, such as "position"; "" leaves their
	// order to the database.
	Order string

	// Required: the thumbnail's loc, the title and the description, and
	// at least one of ContentLoc (the media file) and PlayerLoc. Locs may
	// hold paths, which Config.BaseURL makes absolute.
	ThumbnailLoc, Title, Description string
	ContentLoc, PlayerLoc            string

	// Duration is an integer column of seconds.
	Duration string
	// PublicationDate and ExpirationDate are read as Config.LastMod is: a
	// timestamp, date or datetime column, text in the SQLite date formats,
	// or Unix seconds.
	PublicationDate, ExpirationDate string
	// Rating is a number from 0.0 to 5.0; ViewCount an integer.
	Rating, ViewCount string
	// FamilyFriendly, RequiresSubscription, Live and AllowEmbed (the
	// player's allow_embed) are "yes" or "no": text as it is, or a boolean
	// or integer column (true or non-zero is "yes").
	FamilyFriendly, RequiresSubscription, Live, AllowEmbed string
	// Tags is a text column of the video's tags separated by commas
	// (spaces around each are trimmed; at most 32 are written).
	Tags string
	// Category, Uploader and UploaderInfo (a loc, which may be a path)
	// are text.
	Category, Uploader, UploaderInfo string
}

// VideosFrom returns a Loader of the videos in table t: one query a page,
// over the page's key range, of the columns t names, in the order of the
// key, then t.Order:
//
//	sqlsource.VideosFrom(sqlsource.VideoTable{Table: "product_videos", Key: "product_id", Order: "position",
//		ThumbnailLoc: "thumbnail", Title: "title", Description: "description", ContentLoc: "file",
//		Duration: "seconds", PublicationDate: "published_at"})
//
// NULL reads as unset: "" for text, no duration, date, rating or count. A
// value of the wrong kind (a date that does not parse, text in Rating)
// fails the page with an error that names its key; a value that breaks a
// video rule (a title over 100 characters, a rating over 5) is the
// sitemap's to report, which leaves out that video alone. The section
// needs the video extension (sitemap.ExtVideo, in the default set). The
// restriction, platform, prices and gallery need a Loader of the
// application's own.
func VideosFrom(t VideoTable) Loader {
	var last rowHint // rows of the last range read (loadKeyed)
	query, fieldsErr := t.query()
	return func(ctx context.Context, p *Page) (Merge, error) {
		if fieldsErr != nil {
			return nil, fieldsErr
		}
		var r videoRow
		dest := r.dest(&t)
		rows, err := loadKeyed(ctx, p, query, len(dest), len(dest), &last, func(rows *sql.Rows, key *int64, _ int) (sitemap.Video, error) {
			dest[0] = (*keyValue)(key)
			if err := rows.Scan(dest...); err != nil {
				return sitemap.Video{}, fmt.Errorf("sqlsource: a video of key %d: %w", *key, err)
			}
			return r.video(&p.base), nil
		})
		if err != nil || len(rows.keys) == 0 {
			return nil, err
		}
		return func(key int64, u *sitemap.URL) {
			if vids := rows.get(key); vids != nil {
				u.Videos = vids
			}
		}, nil
	}
}

// columns returns the columns t names, in the order of videoRow.dest after
// the key: "" for those it does not.
func (t *VideoTable) columns() []string {
	return []string{t.ThumbnailLoc, t.Title, t.Description, t.ContentLoc, t.PlayerLoc,
		t.Duration, t.PublicationDate, t.ExpirationDate, t.Rating, t.ViewCount,
		t.FamilyFriendly, t.RequiresSubscription, t.Live, t.AllowEmbed,
		t.Tags, t.Category, t.Uploader, t.UploaderInfo}
}

// query checks t and returns the query of a page's videos.
func (t *VideoTable) query() (string, error) {
	switch {
	case t.Table == "" || t.Key == "":
		return "", errors.New("sqlsource: VideosFrom needs VideoTable.Table and Key")
	case t.ThumbnailLoc == "" || t.Title == "" || t.Description == "":
		return "", errors.New("sqlsource: VideosFrom needs VideoTable.ThumbnailLoc, Title and Description, which every video has")
	case t.ContentLoc == "" && t.PlayerLoc == "":
		return "", errors.New("sqlsource: VideosFrom needs VideoTable.ContentLoc or PlayerLoc")
	}
	cols := []string{t.Key}
	for _, c := range t.columns() {
		if c != "" {
			cols = append(cols, c)
		}
	}
	order := t.Key
	if t.Order != "" {
		order += ", " + t.Order
	}
	return "SELECT " + strings.Join(cols, ", ") + " FROM " + t.Table + " WHERE " + t.Key + " BETWEEN ? AND ? ORDER BY " + order, nil
}

// videoRow is where one row of a VideosFrom query is scanned.
type videoRow struct {
	thumbnail, title, description, content, player textValue
	duration, views                                sql.NullInt64
	published, expires                             timeScanner
	rating                                         sql.NullFloat64
	family, subscription, live, embed              yesNo
	tags, category, uploader, uploaderInfo         textValue
}

// dest returns the scan destinations of t's query: the key's (set by
// the caller) and then the columns t names.
func (r *videoRow) dest(t *VideoTable) []any {
	all := []any{&r.thumbnail, &r.title, &r.description, &r.content, &r.player,
		&r.duration, &r.published, &r.expires, &r.rating, &r.views,
		&r.family, &r.subscription, &r.live, &r.embed,
		&r.tags, &r.category, &r.uploader, &r.uploaderInfo}
	dest := []any{nil}
	for i, c := range t.columns() {
		if c != "" {
			dest = append(dest, all[i])
		}
	}
	return dest
}

// video returns the video scanned, its locs resolved by base. Its strings
// are its own: the driver's bytes are copied.
func (r *videoRow) video(base *baseURL) sitemap.Video {
	v := sitemap.Video{
		ThumbnailLoc: r.thumbnail.resolved(base), Title: r.title.String(), Description: r.description.String(),
		ContentLoc: r.content.resolved(base), PlayerLoc: r.player.resolved(base),
		PublicationDate: r.published.t, ExpirationDate: r.expires.t,
		FamilyFriendly: string(r.family), RequiresSubscription: string(r.subscription), Live: string(r.live), AllowEmbed: string(r.embed),
		Category: r.category.String(), Uploader: r.uploader.String(), UploaderInfo: r.uploaderInfo.resolved(base),
	}
	if d := r.duration.Int64; r.duration.Valid {
		// Out of 1 to 8 hours, the sitemap leaves the video out and says
		// so; kept within one second of that range, no conversion wraps.
		v.Duration = time.Duration(min(max(d, -1), maxVideoSeconds+1)) * time.Second
	}
	if r.rating.Valid {
		v.Rating = new(r.rating.Float64)
	}
	if r.views.Valid {
		v.ViewCount = new(r.views.Int64)
	}
	if s := r.tags.String(); strings.TrimSpace(s) != "" {
		for tag := range strings.SplitSeq(s, ",") {
			if tag = strings.TrimSpace(tag); tag != "" {
				v.Tags = append(v.Tags, tag)
			}
		}
	}
	return v
}

// maxVideoSeconds is the protocol's longest video, 8 hours.
const maxVideoSeconds = 28_800

// yesNo scans a yes/no column: text as it is, a boolean, or an integer
// (non-zero is "yes"). NULL reads as "".
type yesNo string

// Scan implements sql.Scanner.
func (y *yesNo) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*y = ""
	case bool:
		*y = yesNoOf(v)
	case int64:
		*y = yesNoOf(v != 0)
	case string:
		*y = yesNo(v)
	case []byte:
		*y = yesNo(v) // a copy
	default:
		return fmt.Errorf("%T where yes, no or a boolean was expected", src)
	}
	return nil
}

func yesNoOf(b bool) yesNo {
	if b {
		return "yes"
	}
	return "no"
}
