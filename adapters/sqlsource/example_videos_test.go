package sqlsource_test

import (
	"context"
	"database/sql"
	"fmt"
	"log"

	"github.com/freshmap/sitemap/adapters/sqlsource"
)

// A table of videos, one row a video, read with one query a page by
// VideosFrom: the columns are named once.
func ExampleVideosFrom() {
	db, err := sql.Open("sqlite", "file:videos?mode=memory&cache=shared")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		`CREATE TABLE courses (id INTEGER PRIMARY KEY, slug TEXT NOT NULL)`,
		`CREATE TABLE course_videos (course_id INTEGER NOT NULL, position INTEGER NOT NULL, thumbnail TEXT NOT NULL,
			title TEXT NOT NULL, description TEXT NOT NULL, file TEXT, seconds INTEGER, published_at TEXT, tags TEXT)`,
		`INSERT INTO courses VALUES (1, 'knife-skills'), (2, 'bread')`,
		`INSERT INTO course_videos VALUES
			(1, 1, '/thumbs/dice.jpg', 'Dicing', 'Dicing an onion', '/media/dice.mp4', 185, '2024-05-02', 'onion, knife'),
			(1, 0, '/thumbs/grip.jpg', 'The grip', 'Holding a chef''s knife', '/media/grip.mp4', 62, '2024-05-01', NULL)`,
	} {
		if _, err := db.Exec(q); err != nil {
			log.Fatal(err)
		}
	}
	src, err := sqlsource.New(db, sqlsource.Config{
		Table: "courses", Key: "id", BaseURL: "https://cooking.example.com", LocTemplate: "/courses/{slug}",
		Loaders: []sqlsource.Loader{sqlsource.VideosFrom(sqlsource.VideoTable{
			Table: "course_videos", Key: "course_id", Order: "position",
			ThumbnailLoc: "thumbnail", Title: "title", Description: "description", ContentLoc: "file",
			Duration: "seconds", PublicationDate: "published_at", Tags: "tags",
		})},
	})
	if err != nil {
		log.Fatal(err)
	}
	// src is a sitemap.Source for a Section with the video extension (in
	// the default set). This reads it directly.
	for u, err := range src.URLs(context.Background(), 1) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(u.Loc)
		for _, v := range u.Videos {
			fmt.Println(" ", v.Title, v.ContentLoc, v.Duration, v.PublicationDate.Format("2006-01-02"), v.Tags)
		}
	}
	// Output:
	// https://cooking.example.com/courses/knife-skills
	//   The grip https://cooking.example.com/media/grip.mp4 1m2s 2024-05-01 []
	//   Dicing https://cooking.example.com/media/dice.mp4 3m5s 2024-05-02 [onion knife]
	// https://cooking.example.com/courses/bread
}
