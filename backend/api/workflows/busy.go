package workflows

import (
	"errors"
	"strconv"
	"time"

	"github.com/cloudwego/hertz/pkg/app"

	"github.com/pergola-ai/pergola/domain/errs"
)

// busyRetryAfter is how long a client whose async run the queue refused
// (too many runs wait for a worker) is asked to wait before trying again.
const busyRetryAfter = 5 * time.Second

// setRetryAfter adds Retry-After to the answer when err is the queue's
// refusal; the error itself renders as 429 with code 4013.
func setRetryAfter(c *app.RequestContext, err error) {
	var full *errs.QueueFullError
	if errors.As(err, &full) {
		c.Header("Retry-After", strconv.Itoa(int(busyRetryAfter.Seconds())))
	}
}
