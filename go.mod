module github.com/freshmap/sitemap

go 1.26.0

require (
	github.com/cespare/xxhash/v2 v2.3.0
	github.com/hashicorp/golang-lru/v2 v2.0.7
	github.com/klauspost/compress v1.20.3
	golang.org/x/net v0.62.0
	golang.org/x/sync v0.24.0
)

require golang.org/x/text v0.43.0 // indirect
