package channel

import (
	"context"
	"encoding/json"

	"github.com/pergola-ai/pergola/domain/channel"
)

// streamed is what streaming showed of an answer before its final
// delivery: the first message's handle and its Markdown.
type streamed struct {
	handle json.RawMessage
	shown  string
}

// send delivers d's answer once through a, and returns the event as
// recorded after it (a PartSender's progress is recorded part by part).
func (r *Runtime) send(ctx context.Context, a Adapter, c *channel.Channel, d *channel.Delivery, sent streamed) (*channel.Delivery, error) {
	if ps, ok := a.(PartSender); ok {
		return r.sendParts(ctx, ps, c, d, sent)
	}
	if rd, ok := a.(RecordDeliverer); ok {
		return d, rd.DeliverRecord(ctx, c, d)
	}
	return d, a.Deliver(ctx, c, d.Reply, d.Answer)
}

// sendParts sends the parts of d's answer not delivered yet, recording
// each one delivered, so that a retry resumes at the first part not sent.
// The first part goes into the message streaming made, when there is
// one, with the whole first part.
func (r *Runtime) sendParts(ctx context.Context, ps PartSender, c *channel.Channel, d *channel.Delivery, sent streamed) (*channel.Delivery, error) {
	parts := ps.Parts(d.Answer)
	for i := d.PartsSent; i < len(parts); i++ {
		h, err := r.sendPart(ctx, ps, c, d, sent, i, parts[i])
		if err != nil {
			return d, err
		}
		d = r.update(ctx, d, func(x *channel.Delivery) {
			x.PartsSent = i + 1
			if i == 0 && h != nil {
				x.Handle = checkedHandle(h)
			}
		})
	}
	return d, nil
}

// sendPart sends part i: the final edit of the streamed first message
// (none when it shows that text already), or a new message.
func (r *Runtime) sendPart(ctx context.Context, ps PartSender, c *channel.Channel, d *channel.Delivery, sent streamed, i int, part string) (json.RawMessage, error) {
	handle := sent.handle
	if handle == nil {
		handle = d.Handle
	}
	s, edits := ps.(Streamer)
	if i > 0 || !edits || handle == nil {
		return ps.SendPart(ctx, c, d.Reply, i, part)
	}
	if sent.handle != nil && part == sent.shown {
		return nil, nil
	}
	return nil, s.Edit(ctx, c, d.Reply, handle, part)
}
