package xmlenc

import "time"

// testBase is the base URL of the tests' locations.
const testBase = "https://example.com/"

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
