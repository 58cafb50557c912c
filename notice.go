package sitemap

// corrected reports a URL of page n that was written with a correction
// (ErrSelfLinkAdded): counted, logged at info level and told to OnNotice.
// It is not a rejection: the URL is in the file.
func (s *Sitemap) corrected(sec *section, n int64, loc string, err error) {
	s.stats.corrected.Add(1)
	s.log.Info("sitemap: URL corrected", "section", sec.name, "page", n, "loc", quote(loc), "err", err)
	if s.onNotice != nil {
		s.onNotice(sec.name, n, loc, err)
	}
}
