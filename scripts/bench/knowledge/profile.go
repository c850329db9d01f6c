package main

import (
	"fmt"
	"math/rand"
	"strings"

	"github.com/pergola-ai/pergola/scripts/bench/internal/benchkit"
)

// profilePhase publishes the bot without knowledge and with auto-call
// knowledge by each strategy, then runs one bot's turns at a time while
// the server's pprof listener takes a CPU profile, written to
// <dir>/knowledge-<bot>.pprof: the knowledge bots' profiles against the
// bare bot's show where a recall's CPU goes.
func (b *bench) profilePhase() error {
	if b.o.pprof == "" || b.o.profileDir == "" {
		return fmt.Errorf("the profile phase needs -pprof and -profile")
	}
	bots := []*chatBot{{name: "no knowledge", strategy: -1}, {name: "semantic", strategy: 0},
		{name: "full text", strategy: 20}, {name: "hybrid", strategy: 1}}
	r := rand.New(rand.NewSource(int64(b.o.seed) + 29))
	for _, bot := range bots {
		if err := b.publish(bot); err != nil {
			return err
		}
		for range b.o.warm {
			if err := b.turn(bot, b.corpus.query(r, b.o.docs, b.o.chunksPerDoc), false); err != nil {
				return fmt.Errorf("%s: %w", bot.name, err)
			}
		}
		var failed error
		file := fmt.Sprintf("%s/knowledge-%s.pprof", b.o.profileDir, strings.ReplaceAll(bot.name, " ", "-"))
		err := benchkit.Profile(b.o.pprof, b.o.profileFor, file, func(stop <-chan struct{}) {
			for failed == nil {
				select {
				case <-stop:
					return
				default:
				}
				failed = b.turn(bot, b.corpus.query(r, b.o.docs, b.o.chunksPerDoc), true)
			}
		})
		if err == nil {
			err = failed
		}
		if err != nil {
			return fmt.Errorf("%s: %w", bot.name, err)
		}
		fmt.Printf("profile of %s (%d turns): %s\n", bot.name, bot.lat.Len(), file)
	}
	return nil
}
