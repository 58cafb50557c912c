package sitemap

import (
	"time"
)

// follow keeps this replica subscribed to what the others say (fleet.go)
// until Close. After a break, it cannot know what it missed: each copy it
// holds is looked up in the store once more, on its next request, and
// replaced if the store has a newer one (resync). Once a second, it tells
// the others the changes it could not tell while the store was off.
func (s *Sitemap) follow(broken <-chan struct{}) {
	sh := s.shared
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for delay := breakerMin; ; delay = min(2*delay, breakerMax) {
		for broken != nil {
			select {
			case <-s.ctx.Done():
				return
			case <-broken:
				broken = nil
				s.resync() // what is cached now may miss what is said from now on
				s.log.Debug("sitemap: store subscription broken; subscribing again")
			case <-tick.C:
				if p := sh.takePending(); len(p) > 0 {
					s.tellChanged(p)
				}
			}
		}
		// Wait delay, or less once the store answers other calls (the
		// breaker closed): a replica that shares copies again must hear
		// of changes again.
		for waited := time.Duration(0); waited < delay; waited += breakerMin {
			t := time.NewTimer(breakerMin)
			select {
			case <-s.ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			if !sh.br.isOpen() {
				break
			}
		}
		if broken = s.subscribe(); broken != nil {
			delay = breakerMin
			s.resync() // and what was cached during the break
		}
	}
}

// subscribe subscribes to the store's channel, and learns the store's
// generation; it returns nil if the store did not answer.
func (s *Sitemap) subscribe() <-chan struct{} {
	sh := s.shared
	var broken <-chan struct{}
	err := sh.call(s.ctx, func() (err error) {
		broken, err = sh.st.Subscribe(s.ctx, sh.channel, s.onMessage)
		return err
	})
	if err != nil {
		return nil
	}
	if gen, err := sh.incr(s.ctx); err == nil {
		sh.seen(gen)
	}
	return broken
}

// resync makes every copy cached so far be looked up in the store once
// more before it is served (build.go), as a newer one may have been built
// elsewhere while this replica could not hear of it.
func (s *Sitemap) resync() {
	s.shared.breaks.Add(1)
}

// unsynced reports whether e, a cached copy, was made before the last
// break and not yet looked up in the store since.
func (sh *shared) unsynced(e *entry) bool {
	return e.synced.Load() < sh.breaks.Load()
}

// onMessage applies what another replica said.
func (s *Sitemap) onMessage(b []byte) {
	sh := s.shared
	m, err := decodeMessage(b)
	if err != nil {
		if !sh.garbage.Swap(true) {
			s.log.Warn("sitemap: a store message does not decode; ignored (logged once)")
		}
		return
	}
	if m.from == sh.id {
		return
	}
	sh.seen(m.gen)
	now := s.now()
	for _, name := range m.names {
		k, ok := s.keyOf(name)
		if !ok {
			continue // a document this replica does not have
		}
		cur, cached := s.cache.peek(k)
		if cached {
			cur.looked.Store(0) // the store has news of k: look there on the next request
		}
		switch m.kind {
		case msgChanged:
			sh.mark(k, m.gen)
			s.outdateHere(k)
			s.failures.forget(k)
			if !cached && k.sec > indexSection {
				s.clocks.invalidated(k, now)
			}
		case msgBuilt:
			if cached && cur.hash != m.hash {
				s.outdateHere(k)
			}
		}
	}
}

// keyOf returns the key of the document named name (as describe names
// it), if this Sitemap has it.
func (s *Sitemap) keyOf(name string) (pageKey, bool) {
	rt, ok := s.route(s.prefix + name)
	switch {
	case !ok:
		return pageKey{}, false
	case rt.rep == asAtom:
		return feedKey(rt.sec), true
	case rt.sec == nil && rt.page == 1:
		return indexKey, true
	case rt.sec != nil && rt.rep == asGzipFile:
		return pageKey{sec: rt.sec.index, page: rt.page}, true
	}
	return pageKey{}, false
}
