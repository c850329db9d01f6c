// Package trigger holds triggers: what starts a workflow, or a chat turn
// of a bot, without a person asking, on a schedule (a cron expression in a
// time zone, or an interval) or, for workflows, on a call to the
// trigger's webhook.
package trigger

import (
	"context"
	"time"

	"github.com/pergola-ai/pergola/domain/identity"
)

// Kind is what fires a trigger.
type Kind string

// The kinds of trigger.
const (
	KindSchedule Kind = "schedule"
	KindWebhook  Kind = "webhook"
)

// Missed is what a schedule does with ticks missed while no process ran.
type Missed string

// The missed-tick policies: skip them and wait for the next future tick,
// or run once now for all of them.
const (
	MissedSkip    Missed = "skip"
	MissedRunOnce Missed = "run_once"
)

// Auth is how a webhook call proves it knows the trigger's secret.
type Auth string

// The webhook authentications: an HMAC-SHA256 signature of the timestamp
// and body, or the secret itself in a header.
const (
	AuthHMAC   Auth = "hmac"
	AuthHeader Auth = "header"
)

// Answer is how a webhook call is answered.
type Answer string

// The answer modes: wait for the workflow's output, or 202 with the run id.
const (
	AnswerSync  Answer = "sync"
	AnswerAsync Answer = "async"
)

// State is whether a trigger fires.
type State string

// The states.
const (
	StateActive State = "active"
	StatePaused State = "paused"
)

// Trigger starts runs of a workflow's published version with fixed
// inputs, or chat turns of a bot's published version with a fixed prompt
// (see Bot).
type Trigger struct {
	ID          int64
	WorkspaceID int64
	CreatorID   int64 // the runs are the creator's
	Name        string
	Kind        Kind
	WorkflowID  int64          // 0 for a bot trigger
	Inputs      map[string]any // fixed inputs of every run
	// Bot: the bot, its prompt and where its answer goes; zero for a
	// workflow trigger.
	Bot Bot
	// Schedule: a cron expression (five fields) in TimeZone, or Interval.
	Cron     string
	TimeZone string
	Interval time.Duration
	Missed   Missed
	// Webhook: its secret (sealed at rest), authentication and answer mode.
	Secret    string
	Auth      Auth
	Answer    Answer
	RateLimit int // webhook calls per minute; 0: the default
	State     State
	// PauseReason says why a paused trigger does not fire.
	PauseReason string
	// NextRun is the next tick of an active schedule; nil otherwise.
	NextRun    *time.Time
	LastRun    *time.Time
	LastRunID  int64
	LastStatus string // "started" or "failed"
	LastError  string
	// ConversationID is the conversation a bot trigger aimed at an end
	// user of the API answers in: opened by its first run, 0 before.
	ConversationID int64
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// Outcome of one firing, recorded on the trigger. RunID is the workflow
// run, or a bot's chat (0 while a channel's turn waits in the queue).
type Outcome struct {
	At     time.Time
	RunID  int64
	Status string
	Error  string
	// ConversationID, when not 0, is recorded as the trigger's
	// conversation (a bot trigger aimed at an end user).
	ConversationID int64
}

// The outcome statuses: a run started (a workflow run, or a bot's turn
// queued or running), a bot's answer delivered or stored, or a failure.
const (
	StatusStarted   = "started"
	StatusSucceeded = "succeeded"
	StatusFailed    = "failed"
)

// Store keeps triggers.
type Store interface {
	Create(ctx context.Context, t *Trigger) error
	Get(ctx context.Context, id int64) (*Trigger, error)
	// List returns a page of a workspace's triggers, oldest first, and
	// how many it has.
	List(ctx context.Context, workspaceID int64, page identity.Page) ([]Trigger, int64, error)
	// Update stores the editable fields of t (see Patch) and its
	// conversation; not its state and next run (SetState).
	Update(ctx context.Context, t *Trigger) error
	Delete(ctx context.Context, id int64) error
	// SetState pauses (with a reason) or resumes a trigger, setting its
	// next run (nil when paused).
	SetState(ctx context.Context, id int64, state State, reason string, next *time.Time) error
	// Due returns active schedules whose next run is at or before now,
	// at most limit of them.
	Due(ctx context.Context, now time.Time, limit int) ([]Trigger, error)
	// Claim moves a schedule's next run from tick to next, only if it is
	// still tick and the trigger is active (compare-and-set); it reports
	// whether this caller won the tick. Exactly one caller wins a tick.
	Claim(ctx context.Context, id int64, tick, next time.Time) (bool, error)
	// Record stores the outcome of a firing, unless the trigger holds
	// the outcome of a later one (o.At before its LastRun).
	Record(ctx context.Context, id int64, o Outcome) error
	// ClaimRequest records a webhook call's request id: first is true for
	// its first call; a repeat gets the run the first recorded (0 while it
	// starts).
	ClaimRequest(ctx context.Context, id int64, key string) (runID int64, first bool, err error)
	// SetRequestRun records the run a claimed request started.
	SetRequestRun(ctx context.Context, id int64, key string, runID int64) error
	// ReleaseRequest forgets a claimed request id that started no run, so
	// that a retry runs.
	ReleaseRequest(ctx context.Context, id int64, key string) error
	// PruneRequests forgets the request ids claimed before a time and
	// returns how many.
	PruneRequests(ctx context.Context, before time.Time) (int64, error)
}
