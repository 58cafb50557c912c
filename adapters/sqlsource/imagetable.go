package sqlsource

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/freshmap/sitemap"
)

// ImageTable names a table that holds images one row an image, for
// ImagesFrom. Its names are written into the query as they are; the
// columns of an image hold text.
type ImageTable struct {
	// Table is the table, or a subquery with an alias, such as
	// "(SELECT … ) AS i".
	Table string
	// Key is the column of the URL's key.
	Key string
	// Order orders a URL's images, such as "position"; "" leaves their
	// order to the database.
	Order string
	// Loc is the column of the image's loc. With Config.BaseURL it may
	// hold a path.
	Loc string
	// The image's other columns, each optional ("" for none): its
	// caption, geo location, title and license (which, like Loc, may hold
	// a path).
	Caption, GeoLocation, Title, License string
}

// ImagesFrom returns a Loader of the images in table t: what Images reads
// with a query of t's columns, in the order of the key, then t.Order, but
// with fewer values crossing the driver, which gains most where each value
// read costs much: modernc.org/sqlite takes its connection's mutex for
// each column call and allocates each value.
//
//	sqlsource.ImagesFrom(sqlsource.ImageTable{Table: "product_images",
//		Key: "product_id", Order: "position", Loc: "path", Caption: "caption"})
//
// On PostgreSQL and MySQL, each row is the key and the image's values
// joined into one text column. On SQLite, the whole page is one row: the
// count of images, and every image's key and values joined by
// group_concat over a subquery ordered by key and t.Order, an order SQLite
// keeps for an outer aggregate (it does not flatten such a subquery into
// it). An ORDER BY inside group_concat would cost SQLite more than reading
// the rows. The Loader checks the keys' order and the count, and a page
// that disagrees with either fails with an error.
//
// NULL reads as "", and a URL gets at most 1,000 images. The values are
// joined with U+001F and, on SQLite, the images with U+001E, control
// characters XML does not allow in a sitemap: a value that holds one
// fails the page with an error, where Images would have it written with
// U+FFFD in its place. Only a U+001F in t.Loc, when t names no other
// column, is read as it is.
func ImagesFrom(t ImageTable) Loader {
	var last rowHint // rows of the last range read (loadKeyed)
	fields, fieldsErr := t.fields()
	return func(ctx context.Context, p *Page) (Merge, error) {
		if fieldsErr != nil {
			return nil, fieldsErr
		}
		var rows *keyed[sitemap.Image]
		var err error
		if p.Dialect == SQLite {
			rows, err = t.loadPage(ctx, p, fields)
		} else {
			rows, err = t.loadRows(ctx, p, fields, &last)
		}
		if err != nil || len(rows.keys) == 0 {
			return nil, err
		}
		return mergeImages(rows), nil
	}
}

// The fields of an image that an ImageTable can name.
type imageField uint8

const (
	imageLoc imageField = iota
	imageCaption
	imageGeoLocation
	imageTitle
	imageLicense
)

// The separators of joined values: valueSep parts the values of an image,
// imageSep the images of a page.
const (
	valueSep = '\x1f'
	imageSep = '\x1e'
)

// fields returns the fields t names, in the order the query joins them.
func (t *ImageTable) fields() ([]imageField, error) {
	if t.Table == "" || t.Key == "" || t.Loc == "" {
		return nil, errors.New("sqlsource: ImagesFrom needs ImageTable.Table, Key and Loc")
	}
	var fields []imageField
	for f, col := range t.columns() {
		if col != "" {
			fields = append(fields, imageField(f))
		}
	}
	return fields, nil
}

// columns returns t's columns by imageField.
func (t *ImageTable) columns() [5]string {
	return [...]string{imageLoc: t.Loc, imageCaption: t.Caption, imageGeoLocation: t.GeoLocation, imageTitle: t.Title, imageLicense: t.License}
}

// joined returns the SQL of the values of fields joined by valueSep, in
// dialect d, after the key when withKey.
func (t *ImageTable) joined(d Dialect, fields []imageField, withKey bool) string {
	cols := t.columns()
	sep := "'" + string(rune(valueSep)) + "'"
	var vals []string
	if withKey {
		vals = append(vals, t.Key, sep)
	}
	for i, f := range fields {
		if i > 0 {
			vals = append(vals, sep)
		}
		vals = append(vals, "COALESCE("+cols[f]+", '')")
	}
	if d == MySQL && len(vals) > 1 { // || is OR there, unless PIPES_AS_CONCAT
		return "CONCAT(" + strings.Join(vals, ", ") + ")"
	}
	return strings.Join(vals, " || ")
}

// from returns the query's FROM and WHERE over the page's key range, and
// its order.
func (t *ImageTable) from() (from, order string) {
	order = t.Key
	if t.Order != "" {
		order += ", " + t.Order
	}
	return " FROM " + t.Table + " WHERE " + t.Key + " BETWEEN ? AND ?", order
}

// loadRows reads a page's images one row an image: the key, then the
// image's values joined.
func (t *ImageTable) loadRows(ctx context.Context, p *Page, fields []imageField, last *rowHint) (*keyed[sitemap.Image], error) {
	from, order := t.from()
	query := "SELECT " + t.Key + ", " + t.joined(p.Dialect, fields, false) + from + " ORDER BY " + order
	var joined textValue
	return loadKeyed(ctx, p, query, 2, 2, last, func(rows *sql.Rows, key *int64, _ int) (sitemap.Image, error) {
		if err := rows.Scan((*keyValue)(key), &joined); err != nil {
			return sitemap.Image{}, err
		}
		img, err := splitImage(joined.String(), fields)
		if err != nil {
			return img, fmt.Errorf("sqlsource: an image of key %d: %w", *key, err)
		}
		img.Loc, img.License = p.base.resolve(img.Loc), p.base.resolve(img.License)
		return img, nil
	})
}

// loadPage reads a page's images as one row: their count, and each
// image's key and values, joined. The strings of the images are slices of
// that value, and their resolved locs and licenses slices of one string:
// three allocations a page for any number of images.
func (t *ImageTable) loadPage(ctx context.Context, p *Page, fields []imageField) (*keyed[sitemap.Image], error) {
	from, order := t.from()
	query := "SELECT COUNT(*), COALESCE(group_concat(sqlsource_image, char(30)), '') FROM (SELECT " +
		t.joined(p.Dialect, fields, true) + " AS sqlsource_image" + from + " ORDER BY " + order + ")"
	rows, err := p.Query(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var count int64
	var joined textValue
	if rows.Next() {
		err = rows.Scan((*keyValue)(&count), &joined)
	}
	if err == nil {
		err = rows.Err()
	}
	if err != nil {
		return nil, err
	}
	k := &keyed[sitemap.Image]{keys: make([]int64, 0, count), vals: make([]sitemap.Image, 0, count)}
	s := joined.String()
	// The resolved locs and licenses, in the images' order: room for all
	// of them, a prefix each at most.
	var text strings.Builder
	resolvable := 1
	if t.License != "" {
		resolvable = 2
	}
	text.Grow(len(s) + int(min(count, maxHint))*resolvable*len(p.base.prefix))
	for s != "" {
		img := s
		if i := strings.IndexByte(s, imageSep); i >= 0 {
			img, s = s[:i], s[i+1:]
		} else {
			s = ""
		}
		i := strings.IndexByte(img, valueSep)
		if i < 0 {
			return nil, errors.New("sqlsource: an image without its key: " + wrongValueCount)
		}
		key, err := strconv.ParseInt(img[:i], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("sqlsource: an image's key: %w", err)
		}
		if n := len(k.keys); n > 0 && key < k.keys[n-1] {
			return nil, fmt.Errorf("sqlsource: image keys out of order (%d after %d): SQLite did not keep the subquery's order", key, k.keys[n-1])
		}
		v, err := splitImage(img[i+1:], fields)
		if err != nil {
			return nil, fmt.Errorf("sqlsource: an image of key %d: %w", key, err)
		}
		p.base.writeResolved(&text, v.Loc)
		p.base.writeResolved(&text, v.License)
		k.keys = append(k.keys, key)
		k.vals = append(k.vals, v)
	}
	if int64(len(k.keys)) != count {
		return nil, fmt.Errorf("sqlsource: %d images joined where SQLite counted %d: a value holds U+001E, which ImagesFrom joins images with", len(k.keys), count)
	}
	// Each path's resolved form is the next slice of the text, as long as
	// writeResolved made it.
	all := text.String()
	for i := range k.vals {
		img := &k.vals[i]
		if n := p.base.resolvedLen(img.Loc); n > 0 {
			img.Loc, all = all[:n], all[n:]
		}
		if n := p.base.resolvedLen(img.License); n > 0 {
			img.License, all = all[:n], all[n:]
		}
	}
	return k, nil
}

// splitImage returns the image of joined values s, whose strings are
// slices of s, not resolved.
func splitImage(s string, fields []imageField) (sitemap.Image, error) {
	var img sitemap.Image
	for i, f := range fields {
		v := s
		if i < len(fields)-1 {
			j := strings.IndexByte(s, valueSep)
			if j < 0 {
				return img, errors.New(wrongValueCount)
			}
			v, s = s[:j], s[j+1:]
		} else if i > 0 && strings.IndexByte(s, valueSep) >= 0 { // a loc alone is not joined
			return img, errors.New(wrongValueCount)
		}
		switch f {
		case imageLoc:
			img.Loc = v
		case imageCaption:
			img.Caption = v
		case imageGeoLocation:
			img.GeoLocation = v
		case imageTitle:
			img.Title = v
		case imageLicense:
			img.License = v
		}
	}
	return img, nil
}

// wrongValueCount is the error of a joined image whose number of values is
// not its table's: one of them holds the separator.
const wrongValueCount = "a value holds U+001F, which ImagesFrom joins an image's values with"
