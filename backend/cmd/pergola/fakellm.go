package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/pergola-ai/pergola/infra/fakellm"
)

// runFakeLLM is the "pergola fakellm" sub-command: it serves the scriptable
// OpenAI-compatible fake LLM (see package fakellm) until ctx is done, for
// local runs and benchmarks without a real model. Only the default,
// stateless behaviour is available from the command line, and requests are
// not recorded.
func runFakeLLM(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("fakellm", flag.ContinueOnError)
	fs.SetOutput(stdout)
	addr := fs.String("addr", "127.0.0.1:8999", "address to listen on")
	tokenLatency := fs.Duration("token-latency", 0, "pause between streamed chunks, e.g. 20ms")
	firstToken := fs.Duration("first-token-latency", 0, "pause before the first chunk, e.g. 300ms")
	chunkChars := fs.Int("chunk-chars", 8, "characters per streamed content or argument delta")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return fmt.Errorf("fakellm: %w", err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("fakellm: unexpected arguments %q", fs.Args())
	}

	srv := fakellm.New(
		fakellm.WithTokenLatency(*tokenLatency),
		fakellm.WithFirstTokenLatency(*firstToken),
		fakellm.WithChunkChars(*chunkChars),
		fakellm.WithRecordLimit(0),
	)
	baseURL, err := srv.Listen(*addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "fakellm: serving an OpenAI-compatible API; use base URL %s (any model name, any key)\n", baseURL)
	fmt.Fprintln(stdout, `fakellm: it echoes the user; "#call <tool> <json args>" calls an offered tool; a tool result is answered "tool said: ..."`)
	fmt.Fprintln(stdout, "fakellm: /v1/embeddings answers deterministic bag-of-words vectors (256 dimensions unless asked), /v1/rerank their cosine; GET /v1/fake/stats counts them")
	<-ctx.Done()
	return srv.Close()
}
