package sitemap

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/xmlenc"
)

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
		{name: "no thumbnail", u: v(func(v *Video) { v.ThumbnailLoc = "" }), field: "video.thumbnail_loc", err: xmlenc.ErrRequired, dropped: "video:video"},
		{name: "relative thumbnail", u: v(func(v *Video) { v.ThumbnailLoc = "t.jpg" }), field: "video.thumbnail_loc", err: xmlenc.ErrNotAbsolute, dropped: "video:video"},
		{name: "no title", u: v(func(v *Video) { v.Title = "" }), field: "video.title", err: xmlenc.ErrRequired, dropped: "video:video"},
		{name: "blank title", u: v(func(v *Video) { v.Title = " \t " }), field: "video.title", err: xmlenc.ErrRequired, dropped: "video:video"},
		{name: "no description", u: v(func(v *Video) { v.Description = "" }), field: "video.description", err: xmlenc.ErrRequired, dropped: "video:video"},
		{name: "no content or player loc", u: v(func(v *Video) { v.ContentLoc = "" }), field: "video.content_loc", err: xmlenc.ErrNeedsPlayer, dropped: "video:video"},
		{name: "player loc only", u: v(func(v *Video) { v.ContentLoc, v.PlayerLoc = "", "https://player.example.net/?v=1&a=2" }),
			want: "<video:player_loc>https://player.example.net/?v=1&amp;a=2</video:player_loc>"},
		{name: "bad content loc", u: v(func(v *Video) { v.ContentLoc = "rtmp://cdn.example.net/v" }), field: "video.content_loc", err: xmlenc.ErrNotAbsolute, dropped: "video:video"},
		{name: "bad player loc", u: v(func(v *Video) { v.PlayerLoc = "https://player example.net/" }), field: "video.player_loc", err: xmlenc.ErrBadHost, dropped: "video:video"},

		// lengths count characters, not bytes
		{name: "title 100 characters", u: v(func(v *Video) { v.Title = strings.Repeat("ü", 100) }), want: "<video:title>" + strings.Repeat("ü", 100) + "</video:title>"},
		{name: "title 101 characters", u: v(func(v *Video) { v.Title = strings.Repeat("a", 101) }), field: "video.title", err: xmlenc.ErrLength, dropped: "video:video"},
		{name: "title 100 characters with entities", u: v(func(v *Video) { v.Title = strings.Repeat("&", 100) }), want: "<video:title>" + strings.Repeat("&amp;", 100) + "</video:title>"},
		{name: "description 2048 characters", u: v(func(v *Video) { v.Description = strings.Repeat("é", 2048) }), want: strings.Repeat("é", 2048) + "</video:description>"},
		{name: "description 2049 characters", u: v(func(v *Video) { v.Description = strings.Repeat("é", 2049) }), field: "video.description", err: xmlenc.ErrLength, dropped: "video:video"},
		{name: "description 2049 ASCII", u: v(func(v *Video) { v.Description = strings.Repeat("d", 2049) }), field: "video.description", err: xmlenc.ErrLength, dropped: "video:video"},
		{name: "category 256 characters", u: v(func(v *Video) { v.Category = strings.Repeat("ß", 256) }), want: "<video:category>" + strings.Repeat("ß", 256) + "</video:category>"},
		{name: "category 257 characters", u: v(func(v *Video) { v.Category = strings.Repeat("c", 257) }), field: "video.category", err: xmlenc.ErrLength, dropped: "video:video"},

		// duration: 1 to 28,800 seconds, whole seconds
		{name: "duration 1s", u: v(func(v *Video) { v.Duration = time.Second }), want: "<video:duration>1</video:duration>"},
		{name: "duration 28800s", u: v(func(v *Video) { v.Duration = 8 * time.Hour }), want: "<video:duration>28800</video:duration>"},
		{name: "duration rounded down", u: v(func(v *Video) { v.Duration = 90*time.Second + 999*time.Millisecond }), want: "<video:duration>90</video:duration>"},
		{name: "duration 999ms", u: v(func(v *Video) { v.Duration = 999 * time.Millisecond }), field: "video.duration", err: xmlenc.ErrRange, dropped: "video:video"},
		{name: "duration 28801s", u: v(func(v *Video) { v.Duration = 8*time.Hour + time.Second }), field: "video.duration", err: xmlenc.ErrRange, dropped: "video:video"},
		{name: "duration negative", u: v(func(v *Video) { v.Duration = -time.Second }), field: "video.duration", err: xmlenc.ErrRange, dropped: "video:video"},

		// rating 0-5, view count >= 0
		{name: "rating 0", u: v(func(v *Video) { v.Rating = new(0.0) }), want: "<video:rating>0.0</video:rating>"},
		{name: "rating 5", u: v(func(v *Video) { v.Rating = new(5.0) }), want: "<video:rating>5.0</video:rating>"},
		{name: "rating rounded", u: v(func(v *Video) { v.Rating = new(4.567) }), want: "<video:rating>4.57</video:rating>"},
		{name: "rating -0.1", u: v(func(v *Video) { v.Rating = new(-0.1) }), field: "video.rating", err: xmlenc.ErrRange, dropped: "video:video"},
		{name: "rating 5.01", u: v(func(v *Video) { v.Rating = new(5.01) }), field: "video.rating", err: xmlenc.ErrRange, dropped: "video:video"},
		{name: "rating NaN", u: v(func(v *Video) { v.Rating = new(math.NaN()) }), field: "video.rating", err: xmlenc.ErrRange, dropped: "video:video"},
		{name: "view count 0", u: v(func(v *Video) { v.ViewCount = new(int64(0)) }), want: "<video:view_count>0</video:view_count>"},
		{name: "view count -1", u: v(func(v *Video) { v.ViewCount = new(int64(-1)) }), field: "video.view_count", err: xmlenc.ErrRange, dropped: "video:video"},

		// dates
		{name: "dates", u: v(func(v *Video) { v.ExpirationDate, v.PublicationDate = day(2030, 1, 2), day(2020, 3, 4) }),
			want: "<video:expiration_date>2030-01-02T00:00:00Z</video:expiration_date><video:publication_date>2020-03-04T00:00:00Z</video:publication_date>"},
		{name: "expiration year 10000", u: v(func(v *Video) { v.ExpirationDate = day(10000, 1, 1) }), field: "video.expiration_date", err: xmlenc.ErrYear, dropped: "video:video"},
		{name: "publication year 0", u: v(func(v *Video) { v.PublicationDate = day(0, 1, 1) }), field: "video.publication_date", err: xmlenc.ErrYear, dropped: "video:video"},

		// tags: at most 32
		{name: "32 tags", u: v(func(v *Video) { v.Tags = make([]string, 32); v.Tags[0], v.Tags[31] = "steak", "<grill>" }), want: "<video:tag>steak</video:tag><video:tag>&lt;grill&gt;</video:tag>"},
		{name: "33 tags", u: v(func(v *Video) { v.Tags = make([]string, 33) }), field: "video.tag", err: xmlenc.ErrTooMany, dropped: "video:video"},

		// yes/no fields
		{name: "yes/no fields", u: v(func(v *Video) {
			v.PlayerLoc, v.AllowEmbed, v.FamilyFriendly, v.RequiresSubscription, v.Live = "https://player.example.net/1", "YES", "No", "yes", "no"
		}), want: `allow_embed="yes"`},
		{name: "allow_embed maybe", u: v(func(v *Video) { v.PlayerLoc, v.AllowEmbed = "https://player.example.net/1", "maybe" }), field: "video.player_loc.allow_embed", err: xmlenc.ErrValue, dropped: "video:video"},
		{name: "family_friendly true", u: v(func(v *Video) { v.FamilyFriendly = "true" }), field: "video.family_friendly", err: xmlenc.ErrValue, dropped: "video:video"},
		{name: "requires_subscription 1", u: v(func(v *Video) { v.RequiresSubscription = "1" }), field: "video.requires_subscription", err: xmlenc.ErrValue, dropped: "video:video"},
		{name: "live y", u: v(func(v *Video) { v.Live = "y" }), field: "video.live", err: xmlenc.ErrValue, dropped: "video:video"},
		{name: "allow_embed without player", u: v(func(v *Video) { v.AllowEmbed = "yes" }), field: "video.player_loc", err: xmlenc.ErrRequired, dropped: "video:video"},
		{name: "autoplay without player", u: v(func(v *Video) { v.Autoplay = "ap=1" }), field: "video.player_loc", err: xmlenc.ErrRequired, dropped: "video:video"},
		{name: "autoplay escaped", u: v(func(v *Video) { v.PlayerLoc, v.Autoplay = "https://player.example.net/1", "a=\"1\"&\tb" }),
			want: `<video:player_loc autoplay="a=&quot;1&quot;&amp;&#x9;b">https://player.example.net/1</video:player_loc>`},

		// restriction and platform
		{name: "restriction", u: v(func(v *Video) {
			v.Restriction = &Restriction{Relationship: "allow", Countries: []string{"IE", "GB", "US"}}
		}),
			want: `<video:restriction relationship="allow">IE GB US</video:restriction>`},
		{name: "restriction empty list", u: v(func(v *Video) { v.Restriction = &Restriction{Relationship: "deny"} }), want: `<video:restriction relationship="deny"></video:restriction>`},
		{name: "restriction without relationship", u: v(func(v *Video) { v.Restriction = &Restriction{Countries: []string{"IE"}} }), field: "video.restriction.relationship", err: xmlenc.ErrValue, dropped: "video:video"},
		{name: "restriction relationship block", u: v(func(v *Video) { v.Restriction = &Restriction{Relationship: "block", Countries: []string{"IE"}} }), field: "video.restriction.relationship", err: xmlenc.ErrValue, dropped: "video:video"},
		{name: "restriction lower-case country", u: v(func(v *Video) { v.Restriction = &Restriction{Relationship: "allow", Countries: []string{"ie"}} }), field: "video.restriction", err: xmlenc.ErrValue, dropped: "video:video"},
		{name: "restriction alpha-3 country", u: v(func(v *Video) { v.Restriction = &Restriction{Relationship: "allow", Countries: []string{"IRL"}} }), field: "video.restriction", err: xmlenc.ErrValue, dropped: "video:video"},
		{name: "platform", u: v(func(v *Video) { v.Platform = &Platform{Relationship: "deny", Platforms: []string{"web", "tv"}} }),
			want: `<video:platform relationship="deny">web tv</video:platform>`},
		{name: "platform desktop", u: v(func(v *Video) { v.Platform = &Platform{Relationship: "allow", Platforms: []string{"desktop"}} }), field: "video.platform", err: xmlenc.ErrValue, dropped: "video:video"},
		{name: "platform capitalised", u: v(func(v *Video) { v.Platform = &Platform{Relationship: "allow", Platforms: []string{"Web"}} }), field: "video.platform", err: xmlenc.ErrValue, dropped: "video:video"},
		{name: "platform without relationship", u: v(func(v *Video) { v.Platform = &Platform{Platforms: []string{"web"}} }), field: "video.platform.relationship", err: xmlenc.ErrValue, dropped: "video:video"},

		// prices
		{name: "price", u: v(func(v *Video) {
			v.Prices = []Price{{Amount: "1.99", Currency: "EUR", Type: "rent", Resolution: "HD"}, {Type: "purchase"}}
		}),
			want: `<video:price currency="EUR" type="rent" resolution="HD">1.99</video:price><video:price type="purchase"></video:price>`},
		{name: "price amount forms", u: v(func(v *Video) { v.Prices = []Price{{Amount: "3", Currency: "USD"}, {Amount: ".5", Currency: "USD"}} }), want: `<video:price currency="USD">.5</video:price>`},
		{name: "price with comma", u: v(func(v *Video) { v.Prices = []Price{{Amount: "1,99", Currency: "EUR"}} }), field: "video.price", err: xmlenc.ErrValue, dropped: "video:video"},
		{name: "price negative", u: v(func(v *Video) { v.Prices = []Price{{Amount: "-1", Currency: "EUR"}} }), field: "video.price", err: xmlenc.ErrValue, dropped: "video:video"},
		{name: "price without currency", u: v(func(v *Video) { v.Prices = []Price{{Amount: "1.99"}} }), field: "video.price.currency", err: xmlenc.ErrRequired, dropped: "video:video"},
		{name: "price lower-case currency", u: v(func(v *Video) { v.Prices = []Price{{Amount: "1.99", Currency: "eur"}} }), field: "video.price.currency", err: xmlenc.ErrValue, dropped: "video:video"},
		{name: "price currency symbol", u: v(func(v *Video) { v.Prices = []Price{{Amount: "1.99", Currency: "€"}} }), field: "video.price.currency", err: xmlenc.ErrValue, dropped: "video:video"},
		{name: "price with neither amount nor type", u: v(func(v *Video) { v.Prices = []Price{{Currency: "EUR"}} }), field: "video.price.type", err: xmlenc.ErrRequired, dropped: "video:video"},
		{name: "price type own", u: v(func(v *Video) { v.Prices = []Price{{Amount: "5", Currency: "EUR", Type: "own"}} }),
			want: `<video:price currency="EUR" type="purchase">5</video:price>`},
		{name: "price type buy", u: v(func(v *Video) { v.Prices = []Price{{Amount: "5", Currency: "EUR", Type: "buy"}} }), field: "video.price.type", err: xmlenc.ErrValue, dropped: "video:video"},
		{name: "price resolution 4K", u: v(func(v *Video) { v.Prices = []Price{{Amount: "5", Currency: "EUR", Resolution: "4K"}} }), field: "video.price.resolution", err: xmlenc.ErrValue, dropped: "video:video"},

		// uploader and gallery
		{name: "uploader", u: v(func(v *Video) { v.Uploader, v.UploaderInfo = "Tom & Jerry", "https://example.com/users/tom?x='1'" }),
			want: `<video:uploader info="https://example.com/users/tom?x=&apos;1&apos;">Tom &amp; Jerry</video:uploader>`},
		{name: "uploader info without uploader", u: v(func(v *Video) { v.UploaderInfo = "https://example.com/users/tom" }), field: "video.uploader", err: xmlenc.ErrRequired, dropped: "video:video"},
		{name: "uploader info not a URL", u: v(func(v *Video) { v.Uploader, v.UploaderInfo = "Tom", "tom" }), field: "video.uploader.info", err: xmlenc.ErrNotAbsolute, dropped: "video:video"},
		{name: "gallery", u: v(func(v *Video) { v.GalleryLoc, v.GalleryTitle = "https://example.com/grilling", "Grilling\nvideos" }),
			want: `<video:gallery_loc title="Grilling&#xA;videos">https://example.com/grilling</video:gallery_loc>`},
		{name: "gallery not a URL", u: v(func(v *Video) { v.GalleryLoc = "grilling" }), field: "video.gallery_loc", err: xmlenc.ErrNotAbsolute, dropped: "video:video"},

		// every field at once, in schema order
		{name: "every field", u: v(func(v *Video) { *v = fullVideo() }), want: "<video:live>no</video:live></video:video>"},
		{name: "second video invalid", u: func() URL {
			u := videoURL(nil)
			bad := u.Videos[0]
			bad.Title = ""
			u.Videos = append(u.Videos, bad)
			return u
		}(), field: "video.title", err: xmlenc.ErrRequired, dropped: "video:video"},
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
