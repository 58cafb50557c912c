package demo

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// catalogueEpoch anchors the product catalogue: every product's updated_at
// lies in the two years before it, so that the same seed gives the same
// file on every machine, whenever it is built.
var catalogueEpoch = time.Date(2026, time.November, 1, 0, 0, 0, 0, time.UTC)

const twoYears = 2 * 365 * 24 * time.Hour

var (
	adjectives = [...]string{"Sturdy", "Compact", "Classic", "Modern", "Rustic", "Slim", "Folding", "Stackable",
		"Vintage", "Nordic", "Industrial", "Cosy", "Minimal", "Grand", "Petite", "Handmade"}
	materials = [...]string{"Oak", "Walnut", "Beech", "Pine", "Bamboo", "Steel", "Brass", "Linen",
		"Wool", "Leather", "Marble", "Glass", "Rattan", "Velvet", "Cork", "Teak"}
	nouns = [...]string{"Chair", "Table", "Lamp", "Shelf", "Stool", "Desk", "Bench", "Cabinet",
		"Mirror", "Rug", "Sofa", "Bed", "Dresser", "Bookcase", "Sideboard", "Ottoman"}
	views = [...]string{"front view", "side view", "detail"}
)

// product is one generated row of the products table.
type product struct {
	id        int64
	name      string
	slug      string
	price     int64 // cents
	updatedAt int64 // Unix seconds
	published bool
	images    int // 1 to 3
}

// productGen generates the catalogue's products in id order from a fixed
// seed.
type productGen struct {
	rng *rand.Rand
	id  int64
}

func newProductGen() *productGen {
	return &productGen{rng: rand.New(rand.NewPCG(20261101, 42))}
}

func (g *productGen) next() product {
	g.id++
	r := g.rng
	name := adjectives[r.IntN(len(adjectives))] + " " + materials[r.IntN(len(materials))] + " " + nouns[r.IntN(len(nouns))]
	return product{
		id:        g.id,
		name:      name,
		slug:      strings.ToLower(strings.ReplaceAll(name, " ", "-")),
		price:     int64(990 + r.IntN(200_000)),
		updatedAt: catalogueEpoch.Add(-time.Duration(r.Int64N(int64(twoYears)))).Unix(),
		published: r.IntN(50) != 0, // about 2% are drafts, left out of the sitemap
		images:    1 + r.IntN(3),
	}
}

// imagePath is the path under the base URL of image k (from 1) of a
// product; the demo app draws it as an SVG.
func imagePath(id int64, k int) string {
	return fmt.Sprintf("/img/%d-%d.svg", id, k)
}

// Articles appear on a fixed grid, one every articleEvery, so that a slot
// (a Unix time divided by articleEvery) always gives the same article.
const (
	articleEvery   = 15 * time.Minute
	articleHistory = 30 * 24 * time.Hour // how far back a new catalogue's news goes
)

// article is one generated row of the articles table.
type article struct {
	slug      string
	title     string
	lang      string
	keywords  string
	published int64 // Unix seconds
}

var headlines = map[string][]string{
	"en": {"%s prices fall as a new season begins", "How to care for %s furniture", "Ten rooms that show off %s",
		"Makers bring %s back into fashion", "Why designers love %s this year"},
	"de": {"%s: Preise sinken zum Saisonstart", "So pflegen Sie Möbel aus %s", "Zehn Räume, die %s zeigen"},
	"fr": {"%s : les prix baissent en début de saison", "Comment entretenir les meubles en %s", "Dix pièces qui subliment le %s"},
}

var articleLangs = [...]string{"en", "en", "en", "de", "fr"}

// articleAt returns the article of the grid slot that starts at t.
func articleAt(t time.Time) article {
	slot := t.Unix() / int64(articleEvery/time.Second)
	r := rand.New(rand.NewPCG(uint64(slot), 7))
	lang := articleLangs[r.IntN(len(articleLangs))]
	mat := materials[r.IntN(len(materials))]
	list := headlines[lang]
	title := fmt.Sprintf(list[r.IntN(len(list))], mat)
	return article{
		slug:      fmt.Sprintf("%s-%d", strings.ToLower(mat), slot),
		title:     title,
		lang:      lang,
		keywords:  strings.ToLower(mat) + ", furniture, interiors",
		published: t.Unix(),
	}
}
