package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	botapp "github.com/pergola-ai/pergola/application/bot"
	channelapp "github.com/pergola-ai/pergola/application/channel"
	chatapp "github.com/pergola-ai/pergola/application/chat"
	convapp "github.com/pergola-ai/pergola/application/conversation"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/backend/config"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/infra/channels/delivery"
	"github.com/pergola-ai/pergola/infra/channels/discord"
	"github.com/pergola-ai/pergola/infra/channels/feishu"
	"github.com/pergola-ai/pergola/infra/channels/line"
	"github.com/pergola-ai/pergola/infra/channels/slack"
	"github.com/pergola-ai/pergola/infra/channels/telegram"
	"github.com/pergola-ai/pergola/infra/egress"
	"github.com/pergola-ai/pergola/infra/sqlstore"
)

// newChannels wires the channel use cases over the bots. The platform
// kinds (Telegram, Slack, Discord, LINE, Feishu, Lark) have their
// credentials checked on creation (and Telegram's and LINE's webhooks
// registered when PERGOLA_PUBLIC_URL is set) through the guarded egress
// client; webhook and web use channelapp.NoPlatform.
// The egress allow-list was checked by newWorkflows already; should it
// fail here, those kinds are not checked either.
func newChannels(db *sqlstore.DB, bots *botapp.Service, cfg config.Config) *channelapp.Service {
	opts := []channelapp.Option{channelapp.WithPublicURL(cfg.PublicBase()), channelapp.WithEvents(db.ChannelEvents())}
	if guard, err := egress.New(egress.Config{Allow: cfg.EgressAllow}); err == nil {
		kinds := newPlatformKinds(guard.Client())
		opts = append(opts, channelapp.WithPlatform(channel.KindTelegram, kinds.telegram), channelapp.WithPlatform(channel.KindSlack, kinds.slack))
		opts = append(opts, channelapp.WithPlatform(channel.KindDiscord, kinds.discord))
		opts = append(opts, channelapp.WithPlatform(channel.KindFeishu, kinds.feishu), channelapp.WithPlatform(channel.KindLark, kinds.feishu))
		opts = append(opts, channelapp.WithPlatform(channel.KindLINE, kinds.line))
	}
	return channelapp.New(db.Channels(), bots, opts...)
}

// platformKinds are the kinds with a platform of their own, each built
// once for the use it is given to.
type platformKinds struct {
	telegram *telegram.Kind
	slack    *slack.Kind
	discord  *discord.Kind
	feishu   *feishu.Kind // Feishu and Lark
	line     *line.Kind
}

// newPlatformKinds builds the kinds over the guarded egress client,
// without retries of their own: the runtime retries deliveries (and
// records each attempt), so a send is never retried twice over.
func newPlatformKinds(egressClient *http.Client) platformKinds {
	return platformKinds{
		telegram: telegram.New(egressClient, telegram.WithRetry(delivery.NoRetry())),
		slack:    slack.New(egressClient, slack.WithRetry(delivery.NoRetry())),
		discord:  discord.New(egressClient, discord.WithRetry(delivery.NoRetry())),
		feishu:   feishu.New(egressClient, feishu.WithRetry(delivery.NoRetry())),
		line:     line.New(egressClient, line.WithRetry(delivery.NoRetry())),
	}
}

// channelBinding lets bots be published to their channels.
func channelBinding(db *sqlstore.DB) botapp.Option { return botapp.WithChannels(db.Channels()) }

// channelTurnTimeout bounds one channel event's chat turn.
const channelTurnTimeout = 5 * time.Minute

// newChannelRuntime wires the channels' runtime (the adapters of every
// kind that has one, the chat runtime, the work queue and the locks of
// platform conversations the processes share; done hears of the events
// it finished), starts its worker on the
// queue and adds the worker's stop to cleanups. The egress allow-list
// was checked by newWorkflows already; should it fail here, inbound
// events are not served (nil).
func newChannelRuntime(ctx context.Context, cleanups *[]func(), db *sqlstore.DB, bots *botapp.Service, chats *chatapp.Service,
	shared *kv, cfg config.Config, log *slog.Logger, sh *shares, done func(context.Context, *channel.Delivery)) *channelapp.Runtime {
	guard, err := egress.New(egress.Config{Allow: cfg.EgressAllow})
	if err != nil {
		log.Error("channels: inbound events are not served", "err", fmt.Errorf("PERGOLA_EGRESS_ALLOW: %w", err))
		return nil
	}
	rt := channelapp.NewRuntime(channelapp.RuntimeDeps{
		Channels: db.Channels(), Events: db.ChannelEvents(), Bots: bots, Turns: chatTurns{chats}, Queue: shared.queue,
		Adapters: channelAdapters(guard.Client(), textLimits(cfg)), Locker: shared.locker, Shares: sh.channel,
		Log: log, TurnAttempts: cfg.ChannelRetries.TurnAttempts, TurnBackoff: cfg.ChannelRetries.TurnBackoff,
		DeliveryAttempts: cfg.ChannelRetries.SendAttempts, Backoff: cfg.ChannelRetries.SendBackoff, RetryWindow: cfg.ChannelRetries.RetryWindow,
		Done: done,
	})
	if cfg.ChannelWorkers > 0 {
		*cleanups = append(*cleanups, startChannelWorker(ctx, rt, shared.queue, cfg))
	}
	return rt
}

// channelAdapters are the kinds whose events the runtime takes, each
// sending through the guarded egress client.
func channelAdapters(egressClient *http.Client, limits convapp.TextLimits) map[channel.Kind]channelapp.Adapter {
	kinds := newPlatformKinds(egressClient)
	return map[channel.Kind]channelapp.Adapter{
		channel.KindWebhook:  &channelapp.Webhook{HTTP: egressClient, Limits: limits},
		channel.KindTelegram: kinds.telegram,
		channel.KindSlack:    kinds.slack,
		channel.KindDiscord:  kinds.discord,
		channel.KindFeishu:   kinds.feishu,
		channel.KindLark:     kinds.feishu,
		channel.KindLINE:     kinds.line,
	}
}

// startChannelWorker answers queued channel events, cfg.ChannelWorkers at
// a time, until the returned stop (always safe to call) is called.
func startChannelWorker(ctx context.Context, rt *channelapp.Runtime, queue workflowQueue, cfg config.Config) func() {
	wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		consumer := fmt.Sprintf("channels-%d-%d", os.Getpid(), time.Now().UnixNano())
		rt.Work(wctx, queue, strings.Replace(workflowGroup(cfg), "workflow", "channel", 1), consumer, cfg.ChannelWorkers, channelTurnTimeout+time.Minute)
	}()
	var once sync.Once
	return func() { once.Do(func() { cancel(); <-done }) }
}

// chatTurns runs channel turns on the chat runtime and waits for the
// answer, reporting its text as it grows when the request asks.
type chatTurns struct{ chats *chatapp.Service }

// Answer runs one turn and waits for its answer. A turn that gives no
// answer is a *channelapp.TurnError carrying the apology the end user
// reads (the chat's last error, as the API shows it), and whether another
// try may answer: the model was unavailable, or the chat could not start
// for a reason other than the request or the bot's publication.
func (t chatTurns) Answer(ctx context.Context, req channelapp.TurnRequest) (channelapp.TurnAnswer, error) {
	ctx, cancel := context.WithTimeout(ctx, channelTurnTimeout)
	defer cancel()
	sink := newAnswerSink(req.Progress)
	chat, err := t.chats.StartForChannel(ctx, chatapp.ChannelRequest{BotID: req.BotID, ChannelID: req.ChannelID,
		ConversationID: req.ConversationID, UserID: req.UserID, Text: req.Text}, sink)
	if err != nil {
		if status, _, _ := httpx.Classify(err); status < 500 {
			return channelapp.TurnAnswer{}, err // errs.ErrNotFound opens a new conversation; the rest is final
		}
		return channelapp.TurnAnswer{}, &channelapp.TurnError{Apology: chatapp.MsgAnswerFailed, Retry: true, Err: err}
	}
	select {
	case <-sink.done:
	case <-ctx.Done():
		return channelapp.TurnAnswer{}, &channelapp.TurnError{Apology: chatapp.MsgAnswerFailed, ChatID: chat.ID,
			Err: fmt.Errorf("chat %d did not end within %s", chat.ID, channelTurnTimeout)}
	}
	text, err := sink.result()
	if err != nil {
		return channelapp.TurnAnswer{}, &channelapp.TurnError{Apology: sink.apology(), Retry: sink.modelFailed(), ChatID: chat.ID, Err: err}
	}
	return channelapp.TurnAnswer{ChatID: chat.ID, ConversationID: chat.ConversationID, Text: text}, nil
}

// answerSink collects the answers of a chat until it ends; with
// progress set, it reports the answers so far on every delta, joined as
// result joins them.
type answerSink struct {
	progress func(text string)

	mu      sync.Mutex
	answers []string
	writing strings.Builder // the answer the model is writing now
	err     error
	// lastError is the failed chat's last error: the apology the end
	// user reads.
	lastError string
	done      chan struct{}
	once      sync.Once
}

func newAnswerSink(progress func(string)) *answerSink {
	return &answerSink{progress: progress, done: make(chan struct{})}
}

func (s *answerSink) Send(e chatapp.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch e.Kind {
	case chatapp.EventMessageDelta:
		s.delta(e.Message)
	case chatapp.EventMessageDone:
		if isAnswer(e.Message) {
			s.writing.Reset()
			if e.Message.Content != "" {
				s.answers = append(s.answers, e.Message.Content)
			}
		}
	case chatapp.EventChatCompleted, chatapp.EventRequiresAction:
		s.finish(nil)
	case chatapp.EventChatFailed:
		msg := "the chat failed"
		if e.Chat != nil && e.Chat.LastError != nil {
			msg = e.Chat.LastError.Msg
		}
		s.lastError = msg
		s.finish(errs.New(errs.ErrUnavailable, "chat %d failed: %s", failedChatID(e.Chat), msg))
	case chatapp.EventChatCanceled:
		s.finish(errs.Conflict("the chat was canceled"))
	}
}

// delta adds a piece of the answer being written and reports the text
// so far; s.mu is held.
func (s *answerSink) delta(m *conversation.Message) {
	if s.progress == nil || !isAnswer(m) || m.Content == "" {
		return
	}
	s.writing.WriteString(m.Content)
	s.progress(strings.Join(append(s.answers[:len(s.answers):len(s.answers)], s.writing.String()), "\n\n"))
}

func isAnswer(m *conversation.Message) bool { return m != nil && m.Type == conversation.TypeAnswer }

func (s *answerSink) finish(err error) {
	s.once.Do(func() { s.err = err; close(s.done) })
}

// apology is what the end user reads for the failed chat: its last
// error, the short text of the API.
func (s *answerSink) apology() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lastError == "" {
		return chatapp.MsgAnswerFailed
	}
	return s.lastError
}

// modelFailed reports whether the chat failed because the model was
// unavailable: another try may answer once it is back.
func (s *answerSink) modelFailed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.HasPrefix(s.lastError, chatapp.MsgModelUnavailable)
}

func failedChatID(c *conversation.Chat) int64 {
	if c == nil {
		return 0
	}
	return c.ID
}

func (s *answerSink) result() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.answers, "\n\n"), s.err
}
