package main

import (
	"context"
	"sync/atomic"

	botapp "github.com/pergola-ai/pergola/application/bot"
	channelapp "github.com/pergola-ai/pergola/application/channel"
	chatapp "github.com/pergola-ai/pergola/application/chat"
	triggerapp "github.com/pergola-ai/pergola/application/trigger"
	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/infra/sqlstore"
)

// botTriggers is what bot triggers run on: the bots, the chat runtime
// (answers for end users of the API) and the channels' runtime (answers
// posted to a channel; nil when channels are not served), and where the
// channels' runtime reports the events it finished.
type botTriggers struct {
	bots     botLookup
	chats    triggerChats
	inbound  *channelapp.Runtime
	outcomes *triggerOutcomes
}

func newBotTriggers(db *sqlstore.DB, bots *botapp.Service, chats *chatapp.Service) botTriggers {
	return botTriggers{bots: botLookup{BotStore: db.Bots(), Service: bots}, chats: triggerChats{chats}, outcomes: &triggerOutcomes{}}
}

// deps fills in the trigger service's dependencies for bots.
func (b botTriggers) deps(d *triggerapp.Deps) {
	d.Bots, d.Chats = b.bots, b.chats
	if b.inbound != nil {
		d.Channels = b.inbound
	}
}

// botLookup reads bots from the store and publications from the bot
// service.
type botLookup struct {
	*sqlstore.BotStore
	*botapp.Service
}

// GetBot reads a bot whatever the caller.
func (l botLookup) GetBot(ctx context.Context, id int64) (*bot.Bot, error) {
	return l.BotStore.GetBot(ctx, id)
}

// ResolvePublished returns the version published to connector.
func (l botLookup) ResolvePublished(ctx context.Context, botID int64, connector string) (*bot.Bot, *bot.Version, error) {
	return l.Service.ResolvePublished(ctx, botID, connector)
}

// triggerOutcomes hands the channel events the runtime finished to the
// trigger service, built after the runtime.
type triggerOutcomes struct {
	svc atomic.Pointer[triggerapp.Service]
}

// channelDone is the channels' runtime's RuntimeDeps.Done.
func (o *triggerOutcomes) channelDone(ctx context.Context, d *channel.Delivery) {
	if svc := o.svc.Load(); svc != nil {
		svc.ChannelDone(ctx, d)
	}
}

// triggerChats runs bot triggers' turns for end users on the chat
// runtime.
type triggerChats struct{ chats *chatapp.Service }

// Chat starts the turn and calls done when the chat ends.
func (t triggerChats) Chat(ctx context.Context, p identity.Principal, req triggerapp.ChatRequest, done func(error)) (int64, int64, error) {
	sink := &doneSink{done: done}
	chat, err := t.chats.Start(ctx, p, chatapp.Request{BotID: req.BotID, ConversationID: req.ConversationID, UserID: req.UserID,
		AutoSaveHistory: true, AdditionalMessages: []chatapp.InputMessage{{Role: conversation.RoleUser, Content: req.Prompt}}}, sink)
	if err != nil {
		return 0, 0, err
	}
	return chat.ID, chat.ConversationID, nil
}

// doneSink calls done once, when the chat ends.
type doneSink struct {
	done func(error)
	once atomic.Bool
}

func (s *doneSink) Send(e chatapp.Event) {
	var err error
	switch e.Kind {
	case chatapp.EventChatCompleted:
	case chatapp.EventChatFailed:
		msg := "the chat failed"
		if e.Chat != nil && e.Chat.LastError != nil {
			msg = e.Chat.LastError.Msg
		}
		err = errs.New(errs.ErrUnavailable, "chat %d failed: %s", failedChatID(e.Chat), msg)
	case chatapp.EventChatCanceled:
		err = errs.Conflict("the chat was canceled")
	case chatapp.EventRequiresAction:
		err = errs.Conflict("the chat waits for tool outputs nobody will submit")
	default:
		return
	}
	if s.once.CompareAndSwap(false, true) {
		s.done(err)
	}
}
