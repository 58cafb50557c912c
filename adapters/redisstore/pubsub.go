package redisstore

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// Publish sends msg to the subscribers of channel with PUBLISH.
func (s *Store) Publish(ctx context.Context, channel string, msg []byte) error {
	ctx, end := s.bound(ctx)
	err := s.client.Publish(ctx, s.prefix+channel, msg).Err()
	end(err)
	if err != nil {
		return fmt.Errorf("redisstore: publish on %q: %w", channel, err)
	}
	return nil
}

// Subscribe subscribes to channel on a connection of its own, and returns
// once Redis has confirmed the subscription (within Timeout), so that
// every message published after it returns is delivered. A goroutine then
// calls f with each message, in order, until ctx is done or the
// connection fails; it then closes the connection, and closes broken last.
//
// It reads with ReceiveMessage rather than go-redis's Channel, which
// reconnects silently and loses the messages published meanwhile: the
// Sitemap must know of the gap, to subscribe again and drop what it may
// have missed.
func (s *Store) Subscribe(ctx context.Context, channel string, f func(msg []byte)) (<-chan struct{}, error) {
	name := s.prefix + channel
	setup, cancel := context.WithTimeout(ctx, s.lat.timeout())
	defer cancel()
	ps := s.client.Subscribe(setup, name) // its error comes again from Receive
	reply, err := ps.Receive(setup)
	if err == nil {
		if sub, ok := reply.(*redis.Subscription); !ok || sub.Kind != "subscribe" || sub.Channel != name {
			err = fmt.Errorf("unexpected reply %v", reply)
		}
	}
	if err != nil {
		ps.Close()
		return nil, fmt.Errorf("redisstore: subscribe to %q: %w", channel, err)
	}

	broken := make(chan struct{})
	go func() {
		defer close(broken)
		defer ps.Close()
		// A receive blocks on the socket and does not watch ctx: closing
		// the PubSub is what ends it.
		stop := context.AfterFunc(ctx, func() { ps.Close() })
		defer stop()
		for {
			// Every error ends the subscription, even one after which
			// go-redis has reconnected: messages may have been lost.
			msg, err := ps.ReceiveMessage(ctx)
			if err != nil || ctx.Err() != nil {
				return
			}
			f([]byte(msg.Payload))
		}
	}()
	return broken, nil
}
