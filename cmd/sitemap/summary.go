package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"text/tabwriter"

	"github.com/freshmap/sitemap/check"
)

// summary writes the table of counts: files, URLs, errors and warnings,
// then the findings by rule, in the order of check.Rules.
func summary(w io.Writer, r check.Report) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "\nfiles\tURLs\terrors\twarnings\n%d\t%d\t%d\t%d\n", r.Files, r.URLs, r.Errors, r.Warnings)
	if r.Pages != nil {
		n := 0
		for _, v := range r.Pages {
			n += v
		}
		fmt.Fprintf(tw, "\npages fetched (-deep)\t%d\n", n)
		keys := slices.Sorted(maps.Keys(r.Pages))
		for _, k := range keys {
			fmt.Fprintf(tw, "  %s\t%d\n", k, r.Pages[k])
		}
	}
	if len(r.ByRule) > 0 {
		fmt.Fprintf(tw, "\nrule\tseverity\tfindings\n")
		for _, rule := range check.Rules {
			if n := r.ByRule[rule.Name]; n > 0 {
				fmt.Fprintf(tw, "%s\t%s\t%d\n", rule.Name, rule.Severity, n)
			}
		}
	}
	tw.Flush()
}
