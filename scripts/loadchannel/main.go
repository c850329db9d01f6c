// Command loadchannel loads a webhook channel in callback mode: it sends N
// signed events (and a retry of every tenth) from C concurrent senders,
// receives the signed answers on its own callback server, and reports
// acknowledgement latency and rate, event-to-callback latency and rate,
// double answers, errors and the server's peak memory.
// scripts/load-channel.sh starts everything.
//
//	go run ./scripts/loadchannel -base http://127.0.0.1:8888 -channel 12 -secret s -callback 127.0.0.1:18997 -n 2000 -pid 4242
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/pergola-ai/pergola/scripts/internal/loadstat"
)

// options are the command's flags.
type options struct {
	base, channel, secret, callback string
	n, senders, pid                 int
	wait                            time.Duration
}

func main() {
	var o options
	flag.StringVar(&o.base, "base", "http://127.0.0.1:8888", "Pergola base URL")
	flag.StringVar(&o.channel, "channel", "", "webhook channel id (its callback_url must be http://<callback>/cb)")
	flag.StringVar(&o.secret, "secret", "", "the channel's secret")
	flag.StringVar(&o.callback, "callback", "127.0.0.1:18997", "address the callback server listens on")
	flag.IntVar(&o.n, "n", 1000, "distinct events to send")
	flag.IntVar(&o.senders, "c", 50, "concurrent senders")
	flag.IntVar(&o.pid, "pid", 0, "server process id, to report its memory")
	flag.DurationVar(&o.wait, "wait", 5*time.Minute, "how long to wait for all answers")
	flag.Parse()
	if o.channel == "" || o.secret == "" || o.n < 1 || o.senders < 1 {
		fmt.Fprintln(os.Stderr, "loadchannel: -channel, -secret, -n >= 1 and -c >= 1 are required")
		os.Exit(2)
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "loadchannel:", err)
		os.Exit(1)
	}
}

// run starts the callback server, sends the events, waits for their
// answers (and a little longer, to catch double answers) and reports.
func run(o options) error {
	ln, err := net.Listen("tcp", o.callback)
	if err != nil {
		return err
	}
	s := newSink(o.secret)
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()

	stop, peak := make(chan struct{}), make(chan int64, 1)
	go loadstat.WatchRSS(o.pid, stop, peak)
	evs := plan(o.n)
	began := time.Now()
	acks := send(o, evs)
	s.waitAll(o.n, o.wait)
	time.Sleep(2 * time.Second) // a double answer would come soon after the first
	close(stop)
	got, bad := s.snapshot()
	return report(evs, acks, outcome{got: got, bad: bad, began: began, peakKB: <-peak})
}
