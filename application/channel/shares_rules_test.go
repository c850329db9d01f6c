package channel_test

import (
	"context"
	"testing"
	"time"

	channelapp "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/infra/fairshare"
)

// While one workspace holds its whole share of the channel workers, its
// queued events go back to the end of the queue and another workspace's
// event, queued behind them, is answered.
func TestOneWorkspacesEventsDoNotStarveAnothers(t *testing.T) {
	slots := fairshare.New(fairshare.Config{Name: "channel", Slots: 2, Share: 0.5})
	store := &memStore{rows: map[int64]channel.Channel{
		1: {ID: 1, WorkspaceID: 10, BotID: 9, Kind: channel.KindTelegram, Status: channel.StatusActive},
		2: {ID: 2, WorkspaceID: 20, BotID: 9, Kind: channel.KindTelegram, Status: channel.StatusActive}}}
	events, queue, a := newMemEvents(), &memQueue{}, &scriptedAdapter{}
	rt := channelapp.NewRuntime(channelapp.RuntimeDeps{Channels: store, Events: events, Bots: published{}, Turns: &echoTurns{},
		Queue: queue, Adapters: map[channel.Kind]channelapp.Adapter{channel.KindTelegram: a}, Backoff: time.Millisecond, Shares: slots})
	ctx := context.Background()
	for _, ev := range []struct {
		channel int64
		body    string
	}{{1, `{"ID":"b1","User":"bea","Text":"one"}`}, {1, `{"ID":"b2","User":"bob","Text":"two"}`}, {2, `{"ID":"q1","User":"quinn","Text":"hi"}`}} {
		in := channelapp.Inbound{Header: func(string) string { return "" }, Body: []byte(ev.body)}
		if _, err := rt.Receive(ctx, "telegram", ev.channel, in); err != nil {
			t.Fatal(err)
		}
	}
	handle := func(payloads [][]byte) {
		for _, p := range payloads {
			if err := rt.HandleEvent(ctx, p); err != nil {
				t.Fatal(err)
			}
		}
	}
	status := func(id int64) channel.DeliveryStatus {
		d, err := events.GetEvent(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return d.Status
	}

	leave, err := slots.Enter(ctx, 10, 0) // another worker answers one of workspace 10's events
	if err != nil {
		t.Fatal(err)
	}
	handle(queue.payloads) // this worker goes through the queue once
	if s1, s2, s3 := status(1), status(2), status(3); s1 != channel.DeliveryReceived || s2 != channel.DeliveryReceived || s3 != channel.DeliveryDelivered {
		t.Fatalf("events are %s, %s, %s; want the busy workspace's two still received and the other's delivered", s1, s2, s3)
	}
	if len(queue.payloads) != 5 {
		t.Fatalf("%d messages queued, want the busy workspace's two queued again", len(queue.payloads))
	}
	leave()
	handle(queue.payloads[3:])
	if s1, s2 := status(1), status(2); s1 != channel.DeliveryDelivered || s2 != channel.DeliveryDelivered {
		t.Fatalf("after their turn the events are %s, %s; want delivered", s1, s2)
	}
}
