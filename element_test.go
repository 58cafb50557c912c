package sitemap

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/xsdcheck"
)

func TestStandardFields(t *testing.T) {
	loc := testBase + "page"
	u := func(mod func(*URL)) URL {
		u := URL{Loc: loc}
		mod(&u)
		return u
	}
	plus2 := time.FixedZone("+02:00", 2*60*60)
	cases := []ruleCase{
		// lastmod: W3C Datetime in UTC to the second, or a date; years 0001-9999
		{name: "lastmod UTC", u: u(func(u *URL) { u.LastMod = time.Date(2024, 2, 29, 13, 4, 5, 0, time.UTC) }), want: "<lastmod>2024-02-29T13:04:05Z</lastmod>"},
		{name: "lastmod converted to UTC", u: u(func(u *URL) { u.LastMod = time.Date(2024, 3, 1, 1, 30, 0, 0, plus2) }), want: "<lastmod>2024-02-29T23:30:00Z</lastmod>"},
		{name: "lastmod truncated to the second", u: u(func(u *URL) { u.LastMod = time.Date(2024, 1, 2, 3, 4, 5, 999_999_999, time.UTC) }), want: "<lastmod>2024-01-02T03:04:05Z</lastmod>"},
		{name: "lastmod date only", u: u(func(u *URL) { u.LastMod, u.LastModDateOnly = time.Date(2024, 3, 1, 1, 30, 0, 0, plus2), true }), want: "<lastmod>2024-02-29</lastmod>"},
		{name: "lastmod year 1", u: u(func(u *URL) { u.LastMod = day(1, 1, 2) }), want: "<lastmod>0001-01-02T00:00:00Z</lastmod>"},
		{name: "lastmod zero time is unknown", u: u(func(u *URL) { u.LastMod = day(1, 1, 1) }), want: "<url><loc>" + loc + "</loc></url>"},
		{name: "lastmod year 9999", u: u(func(u *URL) { u.LastMod = time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC) }), want: "<lastmod>9999-12-31T23:59:59Z</lastmod>"},
		{name: "lastmod year 10000 local is 9999 UTC", u: u(func(u *URL) { u.LastMod = time.Date(10000, 1, 1, 1, 0, 0, 0, plus2) }), want: "<lastmod>9999-12-31T23:00:00Z</lastmod>"},
		{name: "lastmod year 0", u: u(func(u *URL) { u.LastMod = day(0, 12, 31) }), field: "lastmod", err: errYear},
		{name: "lastmod year 10000", u: u(func(u *URL) { u.LastMod = day(10000, 1, 1) }), field: "lastmod", err: errYear},
		{name: "lastmod year -5", u: u(func(u *URL) { u.LastMod = day(-5, 1, 1) }), field: "lastmod", err: errYear},
		{name: "no lastmod", u: u(func(u *URL) {}), want: "<url><loc>" + loc + "</loc></url>"},

		// changefreq
		{name: "changefreq always", u: u(func(u *URL) { u.ChangeFreq = Always }), want: "<changefreq>always</changefreq>"},
		{name: "changefreq hourly", u: u(func(u *URL) { u.ChangeFreq = Hourly }), want: "<changefreq>hourly</changefreq>"},
		{name: "changefreq daily", u: u(func(u *URL) { u.ChangeFreq = Daily }), want: "<changefreq>daily</changefreq>"},
		{name: "changefreq weekly", u: u(func(u *URL) { u.ChangeFreq = Weekly }), want: "<changefreq>weekly</changefreq>"},
		{name: "changefreq monthly", u: u(func(u *URL) { u.ChangeFreq = Monthly }), want: "<changefreq>monthly</changefreq>"},
		{name: "changefreq yearly", u: u(func(u *URL) { u.ChangeFreq = Yearly }), want: "<changefreq>yearly</changefreq>"},
		{name: "changefreq never", u: u(func(u *URL) { u.ChangeFreq = Never }), want: "<changefreq>never</changefreq>"},
		{name: "changefreq sometimes", u: u(func(u *URL) { u.ChangeFreq = "sometimes" }), field: "changefreq", err: errChangeFreq},
		{name: "changefreq capitalised", u: u(func(u *URL) { u.ChangeFreq = "Daily" }), field: "changefreq", err: errChangeFreq},

		// priority: 0.0 to 1.0, an explicit 0.0 is written
		{name: "priority 0.0", u: u(func(u *URL) { u.Priority = new(0.0) }), want: "<priority>0.0</priority>"},
		{name: "priority -0.0", u: u(func(u *URL) { u.Priority = new(math.Copysign(0, -1)) }), want: "<priority>0.0</priority>"},
		{name: "priority 0.8", u: u(func(u *URL) { u.Priority = new(0.8) }), want: "<priority>0.8</priority>"},
		{name: "priority 0.25", u: u(func(u *URL) { u.Priority = new(0.25) }), want: "<priority>0.25</priority>"},
		{name: "priority 1", u: u(func(u *URL) { u.Priority = new(1.0) }), want: "<priority>1.0</priority>"},
		{name: "priority -0.1", u: u(func(u *URL) { u.Priority = new(-0.1) }), field: "priority", err: errPriority},
		{name: "priority 1.1", u: u(func(u *URL) { u.Priority = new(1.1) }), field: "priority", err: errPriority},
		{name: "priority NaN", u: u(func(u *URL) { u.Priority = new(math.NaN()) }), field: "priority", err: errPriority},
		{name: "priority +Inf", u: u(func(u *URL) { u.Priority = new(math.Inf(1)) }), field: "priority", err: errPriority},
		{name: "all standard fields in schema order", u: u(func(u *URL) {
			u.LastMod, u.ChangeFreq, u.Priority = day(2024, 5, 6), Weekly, new(0.5)
		}), want: "<url><loc>" + loc + "</loc><lastmod>2024-05-06T00:00:00Z</lastmod><changefreq>weekly</changefreq><priority>0.5</priority></url>"},
	}
	runRules(t, cases)
}

func imageURL(n int, mod func(*Image)) URL {
	u := URL{Loc: testBase + "gallery"}
	for i := range n {
		img := Image{Loc: "https://cdn.example.net/img/" + strings.Repeat("x", i%7) + ".jpg"}
		if mod != nil {
			mod(&img)
		}
		u.Images = append(u.Images, img)
	}
	return u
}

func TestImageRules(t *testing.T) {
	img := func(mod func(*Image)) URL { return imageURL(1, mod) }
	runRules(t, []ruleCase{
		{name: "on a CDN", u: img(nil), want: "<image:image><image:loc>https://cdn.example.net/img/.jpg</image:loc></image:image>"},
		{name: "every field", u: img(func(i *Image) {
			i.Caption, i.GeoLocation, i.Title, i.License = "A <b>dog</b> & a cat", "Limerick, Ireland", `"Dogs"`, "https://example.com/license?id=1&v=2"
		}), want: "<image:caption>A &lt;b&gt;dog&lt;/b&gt; &amp; a cat</image:caption><image:geo_location>Limerick, Ireland</image:geo_location>" +
			"<image:title>&quot;Dogs&quot;</image:title><image:license>https://example.com/license?id=1&amp;v=2</image:license></image:image>"},
		{name: "1000 images", u: imageURL(1000, nil), want: "<image:image>"},
		{name: "1001 images", u: imageURL(1001, nil), field: "image", err: errTooMany},
		{name: "no image loc", u: img(func(i *Image) { i.Loc = "" }), field: "image.loc", err: errNotAbsolute},
		{name: "relative image loc", u: img(func(i *Image) { i.Loc = "/img/a.jpg" }), field: "image.loc", err: errNotAbsolute},
		{name: "data image loc", u: img(func(i *Image) { i.Loc = "data:image/png;base64,AAAA" }), field: "image.loc", err: errNotAbsolute},
		{name: "image loc with a control character", u: img(func(i *Image) { i.Loc = "https://cdn.example.net/a\x00.jpg" }), field: "image.loc", err: errControl},
		{name: "image loc with user info", u: img(func(i *Image) { i.Loc = "https://me@cdn.example.net/a.jpg" }), field: "image.loc", err: errBadHost},
		{name: "image license not a URL", u: img(func(i *Image) { i.License = "CC-BY" }), field: "image.license", err: errNotAbsolute},
		{name: "image loc percent-encoded", u: img(func(i *Image) { i.Loc = "https://cdn.example.net/bild über.jpg" }), want: "<image:loc>https://cdn.example.net/bild%20%C3%BCber.jpg</image:loc>"},
	})
}

// videoURL is a URL with one valid video that mod may change.
func videoURL(mod func(*Video)) URL {
	v := Video{
		ThumbnailLoc: "https://cdn.example.net/t.jpg",
		Title:        "Grilling steaks",
		Description:  "How to grill steaks perfectly.",
		ContentLoc:   "https://cdn.example.net/v.mp4",
	}
	if mod != nil {
		mod(&v)
	}
	return URL{Loc: testBase + "video", Videos: []Video{v}}
}

func TestVideoRules(t *testing.T) {
	v := videoURL
	runRules(t, []ruleCase{
		{name: "minimal", u: v(nil), want: "<video:video><video:thumbnail_loc>https://cdn.example.net/t.jpg</video:thumbnail_loc><video:title>Grilling steaks</video:title>" +
			"<video:description>How to grill steaks perfectly.</video:description><video:content_loc>https://cdn.example.net/v.mp4</video:content_loc></video:video>"},

		// required fields
		{name: "no thumbnail", u: v(func(v *Video) { v.ThumbnailLoc = "" }), field: "video.thumbnail_loc", err: errRequired},
		{name: "relative thumbnail", u: v(func(v *Video) { v.ThumbnailLoc = "t.jpg" }), field: "video.thumbnail_loc", err: errNotAbsolute},
		{name: "no title", u: v(func(v *Video) { v.Title = "" }), field: "video.title", err: errRequired},
		{name: "blank title", u: v(func(v *Video) { v.Title = " \t " }), field: "video.title", err: errRequired},
		{name: "no description", u: v(func(v *Video) { v.Description = "" }), field: "video.description", err: errRequired},
		{name: "no content or player loc", u: v(func(v *Video) { v.ContentLoc = "" }), field: "video.content_loc", err: errNeedsPlayer},
		{name: "player loc only", u: v(func(v *Video) { v.ContentLoc, v.PlayerLoc = "", "https://player.example.net/?v=1&a=2" }),
			want: "<video:player_loc>https://player.example.net/?v=1&amp;a=2</video:player_loc>"},
		{name: "bad content loc", u: v(func(v *Video) { v.ContentLoc = "rtmp://cdn.example.net/v" }), field: "video.content_loc", err: errNotAbsolute},
		{name: "bad player loc", u: v(func(v *Video) { v.PlayerLoc = "https://player example.net/" }), field: "video.player_loc", err: errBadHost},

		// lengths count characters, not bytes
		{name: "title 100 characters", u: v(func(v *Video) { v.Title = strings.Repeat("ü", 100) }), want: "<video:title>" + strings.Repeat("ü", 100) + "</video:title>"},
		{name: "title 101 characters", u: v(func(v *Video) { v.Title = strings.Repeat("a", 101) }), field: "video.title", err: errLength},
		{name: "title 100 characters with entities", u: v(func(v *Video) { v.Title = strings.Repeat("&", 100) }), want: "<video:title>" + strings.Repeat("&amp;", 100) + "</video:title>"},
		{name: "description 2048 characters", u: v(func(v *Video) { v.Description = strings.Repeat("é", 2048) }), want: strings.Repeat("é", 2048) + "</video:description>"},
		{name: "description 2049 characters", u: v(func(v *Video) { v.Description = strings.Repeat("é", 2049) }), field: "video.description", err: errLength},
		{name: "description 2049 ASCII", u: v(func(v *Video) { v.Description = strings.Repeat("d", 2049) }), field: "video.description", err: errLength},
		{name: "category 256 characters", u: v(func(v *Video) { v.Category = strings.Repeat("ß", 256) }), want: "<video:category>" + strings.Repeat("ß", 256) + "</video:category>"},
		{name: "category 257 characters", u: v(func(v *Video) { v.Category = strings.Repeat("c", 257) }), field: "video.category", err: errLength},

		// duration: 1 to 28,800 seconds, whole seconds
		{name: "duration 1s", u: v(func(v *Video) { v.Duration = time.Second }), want: "<video:duration>1</video:duration>"},
		{name: "duration 28800s", u: v(func(v *Video) { v.Duration = 8 * time.Hour }), want: "<video:duration>28800</video:duration>"},
		{name: "duration rounded down", u: v(func(v *Video) { v.Duration = 90*time.Second + 999*time.Millisecond }), want: "<video:duration>90</video:duration>"},
		{name: "duration 999ms", u: v(func(v *Video) { v.Duration = 999 * time.Millisecond }), field: "video.duration", err: errRange},
		{name: "duration 28801s", u: v(func(v *Video) { v.Duration = 8*time.Hour + time.Second }), field: "video.duration", err: errRange},
		{name: "duration negative", u: v(func(v *Video) { v.Duration = -time.Second }), field: "video.duration", err: errRange},

		// rating 0-5, view count >= 0
		{name: "rating 0", u: v(func(v *Video) { v.Rating = new(0.0) }), want: "<video:rating>0.0</video:rating>"},
		{name: "rating 5", u: v(func(v *Video) { v.Rating = new(5.0) }), want: "<video:rating>5.0</video:rating>"},
		{name: "rating rounded", u: v(func(v *Video) { v.Rating = new(4.567) }), want: "<video:rating>4.57</video:rating>"},
		{name: "rating -0.1", u: v(func(v *Video) { v.Rating = new(-0.1) }), field: "video.rating", err: errRange},
		{name: "rating 5.01", u: v(func(v *Video) { v.Rating = new(5.01) }), field: "video.rating", err: errRange},
		{name: "rating NaN", u: v(func(v *Video) { v.Rating = new(math.NaN()) }), field: "video.rating", err: errRange},
		{name: "view count 0", u: v(func(v *Video) { v.ViewCount = new(int64(0)) }), want: "<video:view_count>0</video:view_count>"},
		{name: "view count -1", u: v(func(v *Video) { v.ViewCount = new(int64(-1)) }), field: "video.view_count", err: errRange},

		// dates
		{name: "dates", u: v(func(v *Video) { v.ExpirationDate, v.PublicationDate = day(2030, 1, 2), day(2020, 3, 4) }),
			want: "<video:expiration_date>2030-01-02T00:00:00Z</video:expiration_date><video:publication_date>2020-03-04T00:00:00Z</video:publication_date>"},
		{name: "expiration year 10000", u: v(func(v *Video) { v.ExpirationDate = day(10000, 1, 1) }), field: "video.expiration_date", err: errYear},
		{name: "publication year 0", u: v(func(v *Video) { v.PublicationDate = day(0, 1, 1) }), field: "video.publication_date", err: errYear},

		// tags: at most 32
		{name: "32 tags", u: v(func(v *Video) { v.Tags = make([]string, 32); v.Tags[0], v.Tags[31] = "steak", "<grill>" }), want: "<video:tag>steak</video:tag><video:tag>&lt;grill&gt;</video:tag>"},
		{name: "33 tags", u: v(func(v *Video) { v.Tags = make([]string, 33) }), field: "video.tag", err: errTooMany},

		// yes/no fields
		{name: "yes/no fields", u: v(func(v *Video) {
			v.PlayerLoc, v.AllowEmbed, v.FamilyFriendly, v.RequiresSubscription, v.Live = "https://player.example.net/1", "YES", "No", "yes", "no"
		}), want: `allow_embed="yes"`},
		{name: "allow_embed maybe", u: v(func(v *Video) { v.PlayerLoc, v.AllowEmbed = "https://player.example.net/1", "maybe" }), field: "video.player_loc.allow_embed", err: errValue},
		{name: "family_friendly true", u: v(func(v *Video) { v.FamilyFriendly = "true" }), field: "video.family_friendly", err: errValue},
		{name: "requires_subscription 1", u: v(func(v *Video) { v.RequiresSubscription = "1" }), field: "video.requires_subscription", err: errValue},
		{name: "live y", u: v(func(v *Video) { v.Live = "y" }), field: "video.live", err: errValue},
		{name: "allow_embed without player", u: v(func(v *Video) { v.AllowEmbed = "yes" }), field: "video.player_loc", err: errRequired},
		{name: "autoplay without player", u: v(func(v *Video) { v.Autoplay = "ap=1" }), field: "video.player_loc", err: errRequired},
		{name: "autoplay escaped", u: v(func(v *Video) { v.PlayerLoc, v.Autoplay = "https://player.example.net/1", "a=\"1\"&\tb" }),
			want: `<video:player_loc autoplay="a=&quot;1&quot;&amp;&#x9;b">https://player.example.net/1</video:player_loc>`},

		// restriction and platform
		{name: "restriction", u: v(func(v *Video) {
			v.Restriction = &Restriction{Relationship: "allow", Countries: []string{"IE", "GB", "US"}}
		}),
			want: `<video:restriction relationship="allow">IE GB US</video:restriction>`},
		{name: "restriction empty list", u: v(func(v *Video) { v.Restriction = &Restriction{Relationship: "deny"} }), want: `<video:restriction relationship="deny"></video:restriction>`},
		{name: "restriction without relationship", u: v(func(v *Video) { v.Restriction = &Restriction{Countries: []string{"IE"}} }), field: "video.restriction.relationship", err: errValue},
		{name: "restriction relationship block", u: v(func(v *Video) { v.Restriction = &Restriction{Relationship: "block", Countries: []string{"IE"}} }), field: "video.restriction.relationship", err: errValue},
		{name: "restriction lower-case country", u: v(func(v *Video) { v.Restriction = &Restriction{Relationship: "allow", Countries: []string{"ie"}} }), field: "video.restriction", err: errValue},
		{name: "restriction alpha-3 country", u: v(func(v *Video) { v.Restriction = &Restriction{Relationship: "allow", Countries: []string{"IRL"}} }), field: "video.restriction", err: errValue},
		{name: "platform", u: v(func(v *Video) { v.Platform = &Platform{Relationship: "deny", Platforms: []string{"web", "tv"}} }),
			want: `<video:platform relationship="deny">web tv</video:platform>`},
		{name: "platform desktop", u: v(func(v *Video) { v.Platform = &Platform{Relationship: "allow", Platforms: []string{"desktop"}} }), field: "video.platform", err: errValue},
		{name: "platform capitalised", u: v(func(v *Video) { v.Platform = &Platform{Relationship: "allow", Platforms: []string{"Web"}} }), field: "video.platform", err: errValue},
		{name: "platform without relationship", u: v(func(v *Video) { v.Platform = &Platform{Platforms: []string{"web"}} }), field: "video.platform.relationship", err: errValue},

		// prices
		{name: "price", u: v(func(v *Video) {
			v.Prices = []Price{{Amount: "1.99", Currency: "EUR", Type: "rent", Resolution: "HD"}, {Type: "purchase"}}
		}),
			want: `<video:price currency="EUR" type="rent" resolution="HD">1.99</video:price><video:price type="purchase"></video:price>`},
		{name: "price amount forms", u: v(func(v *Video) { v.Prices = []Price{{Amount: "3", Currency: "USD"}, {Amount: ".5", Currency: "USD"}} }), want: `<video:price currency="USD">.5</video:price>`},
		{name: "price with comma", u: v(func(v *Video) { v.Prices = []Price{{Amount: "1,99", Currency: "EUR"}} }), field: "video.price", err: errValue},
		{name: "price negative", u: v(func(v *Video) { v.Prices = []Price{{Amount: "-1", Currency: "EUR"}} }), field: "video.price", err: errValue},
		{name: "price without currency", u: v(func(v *Video) { v.Prices = []Price{{Amount: "1.99"}} }), field: "video.price.currency", err: errRequired},
		{name: "price lower-case currency", u: v(func(v *Video) { v.Prices = []Price{{Amount: "1.99", Currency: "eur"}} }), field: "video.price.currency", err: errValue},
		{name: "price currency symbol", u: v(func(v *Video) { v.Prices = []Price{{Amount: "1.99", Currency: "€"}} }), field: "video.price.currency", err: errValue},
		{name: "price with neither amount nor type", u: v(func(v *Video) { v.Prices = []Price{{Currency: "EUR"}} }), field: "video.price.type", err: errRequired},
		{name: "price type own", u: v(func(v *Video) { v.Prices = []Price{{Amount: "5", Currency: "EUR", Type: "own"}} }),
			want: `<video:price currency="EUR" type="purchase">5</video:price>`},
		{name: "price type buy", u: v(func(v *Video) { v.Prices = []Price{{Amount: "5", Currency: "EUR", Type: "buy"}} }), field: "video.price.type", err: errValue},
		{name: "price resolution 4K", u: v(func(v *Video) { v.Prices = []Price{{Amount: "5", Currency: "EUR", Resolution: "4K"}} }), field: "video.price.resolution", err: errValue},

		// uploader and gallery
		{name: "uploader", u: v(func(v *Video) { v.Uploader, v.UploaderInfo = "Tom & Jerry", "https://example.com/users/tom?x='1'" }),
			want: `<video:uploader info="https://example.com/users/tom?x=&apos;1&apos;">Tom &amp; Jerry</video:uploader>`},
		{name: "uploader info without uploader", u: v(func(v *Video) { v.UploaderInfo = "https://example.com/users/tom" }), field: "video.uploader", err: errRequired},
		{name: "uploader info not a URL", u: v(func(v *Video) { v.Uploader, v.UploaderInfo = "Tom", "tom" }), field: "video.uploader.info", err: errNotAbsolute},
		{name: "gallery", u: v(func(v *Video) { v.GalleryLoc, v.GalleryTitle = "https://example.com/grilling", "Grilling\nvideos" }),
			want: `<video:gallery_loc title="Grilling&#xA;videos">https://example.com/grilling</video:gallery_loc>`},
		{name: "gallery not a URL", u: v(func(v *Video) { v.GalleryLoc = "grilling" }), field: "video.gallery_loc", err: errNotAbsolute},

		// every field at once, in schema order
		{name: "every field", u: v(func(v *Video) { *v = fullVideo() }), want: "<video:live>no</video:live></video:video>"},
		{name: "second video invalid", u: func() URL {
			u := videoURL(nil)
			bad := u.Videos[0]
			bad.Title = ""
			u.Videos = append(u.Videos, bad)
			return u
		}(), field: "video.title", err: errRequired},
	})
}

// fullVideo is a video with every field set.
func fullVideo() Video {
	return Video{
		ThumbnailLoc:         "https://cdn.example.net/thumbs/123.jpg",
		Title:                "Grilling steaks for summer",
		Description:          "Alkis shows you how to get perfectly done steaks every time",
		ContentLoc:           "https://cdn.example.net/video123.mp4",
		PlayerLoc:            "https://www.example.com/videoplayer.php?video=123",
		AllowEmbed:           "yes",
		Autoplay:             "ap=1",
		Duration:             600 * time.Second,
		ExpirationDate:       time.Date(2031, 11, 5, 19, 20, 30, 0, time.UTC),
		Rating:               new(4.2),
		ViewCount:            new(int64(12345)),
		PublicationDate:      time.Date(2007, 11, 5, 19, 20, 30, 0, time.UTC),
		Tags:                 []string{"steak", "meat", "summer", "outdoor"},
		Category:             "Grilling",
		FamilyFriendly:       "yes",
		Restriction:          &Restriction{Relationship: "allow", Countries: []string{"IE", "GB", "US", "CA"}},
		GalleryLoc:           "https://cooking.example.com",
		GalleryTitle:         "Cooking Videos",
		Prices:               []Price{{Amount: "1.99", Currency: "EUR", Type: "rent", Resolution: "HD"}, {Amount: "9.99", Currency: "EUR", Type: "purchase"}},
		RequiresSubscription: "no",
		Uploader:             "GrillyMcGrillerson",
		UploaderInfo:         "https://www.example.com/users/grillymcgrillerson",
		Platform:             &Platform{Relationship: "allow", Platforms: []string{"web", "tv"}},
		Live:                 "no",
	}
}

func TestUndeclaredExtension(t *testing.T) {
	full := URL{Loc: testBase + "x", Images: []Image{{Loc: "https://cdn.example.net/a.jpg"}}}
	for _, tc := range []struct {
		name  string
		ext   Extensions
		u     URL
		field string
	}{
		{"image with video only", ExtVideo, full, "image"},
		{"image with none", ExtNone, full, "image"},
		{"video with image only", ExtImage, videoURL(nil), "video"},
		{"news with the others", ExtImage | ExtVideo | ExtAlternates, newsURL(nil), "news"},
		{"news with the default", 0, newsURL(nil), "news"},
		{"alternates with news only", ExtNews, alternatesURL("en"), "xhtml:link"},
		{"ExtNone wins over the others", ExtNone | ExtImage, full, "image"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := encodeSpec(t, listSource(URL{Loc: anchorLoc}, tc.u), pageSpec{kind: kindURLSet, base: testBase, ext: tc.ext})
			if r.err != nil {
				t.Fatal(r.err)
			}
			checkRejected(t, r, tc.u.Loc, tc.field, errUndeclared)
		})
	}
}

func TestNamespaces(t *testing.T) {
	const (
		img   = ` xmlns:image="` + nsImage + `"`
		video = ` xmlns:video="` + nsVideo + `"`
		news  = ` xmlns:news="` + nsNews + `"`
		xhtml = ` xmlns:xhtml="` + nsXHTML + `"`
	)
	for _, tc := range []struct {
		ext  Extensions
		want string
	}{
		{0, img + video + xhtml}, // news is opt-in
		{ExtNone, ""},
		{ExtImage, img},
		{ExtVideo | ExtAlternates, video + xhtml},
		{ExtNews, news},
		{ExtImage | ExtVideo | ExtNews | ExtAlternates, img + video + news + xhtml},
	} {
		r := encodeSpec(t, listSource(URL{Loc: anchorLoc}), pageSpec{kind: kindURLSet, base: testBase, ext: tc.ext})
		want := xmlHeader + `<urlset xmlns="` + nsSitemap + `"` + tc.want + ">\n<url>"
		if !strings.HasPrefix(string(r.doc), want) {
			t.Errorf("Extensions %#x: document starts\n%.300s\nwant\n%s", tc.ext, r.doc, want)
		}
		xsdcheck.URLSet(t, r.doc)
	}
}
