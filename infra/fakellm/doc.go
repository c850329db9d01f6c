// Package fakellm is a scriptable OpenAI-compatible chat completions server
// for tests, benchmarks and local runs without a real model. The real eino-ext
// openai client talks to it over HTTP, so everything between Pergola and the
// wire (request building, SSE parsing, tool-call chunk merging, usage) is
// exercised.
//
// It serves POST /v1/chat/completions (also /chat/completions) in JSON and SSE
// form, and GET /v1/models. Point a client at the URL returned by
// [Server.Listen] or [Server.BaseURL], e.g. http://127.0.0.1:8999/v1.
//
// Like OpenAI, it refuses an invalid conversation with 400 and an
// invalid_request_error whose param is "messages", before any reply is
// picked: no messages, an unknown role, a message without the content its
// role requires, a tool message that does not answer a tool call of the
// assistant message before it, an assistant's tool call not answered by
// the tool messages right after it, or a tool call id used twice. Such a
// request is still recorded.
//
// Like OpenAI, it refuses a response_format it cannot honour with 400 and
// param "response_format": json_object when no message contains the word
// "json", an unknown type, a json_schema without a valid name, a schema
// whose root is not an object or with an unknown type, and, when strict,
// an object without "additionalProperties": false or not requiring all of
// its properties.
//
// A request is answered by the first of:
//
//  1. the next reply queued with [Server.Enqueue] (first in, first out);
//  2. the first rule added with [Server.When] whose match function accepts
//     the request;
//  3. the default behaviour, which is stateless and deterministic so it
//     works under thousands of concurrent chats.
//
// The default behaviour reads the conversation:
//
//   - If the last message has role "tool", the answer is the text
//     "tool said: <content>", where content joins the contents of the
//     trailing tool messages with "; " (one per parallel tool call).
//   - Otherwise, if the last user message contains one or more directives
//     "#call <tool_name> <json args>" naming tools present in the request's
//     tools, the answer calls those tools, in order, with those arguments
//     ("{}" when the JSON is missing). Example: `#call add {"a":2,"b":3}`.
//   - Otherwise the answer is "echo: <last user text>", followed by
//     " [image: <type>, <n> bytes]" (or " [image: <url>]") per image part
//     of that message.
//
// With a response_format, the default answer (not a tool call) is JSON:
// {"echo": <the text above>} for json_object, and for json_schema an
// object built from the schema (the const or first enum value, the first
// of anyOf/oneOf, every property, arrays of one item, strings "x" or a
// value of their format, numbers 1 within their bounds, booleans true).
//
// Usage is counted deterministically: a text costs ceil(runes/4) tokens. The
// prompt counts every message's content, tool-call names and arguments; the
// completion counts the reply's text, tool names and arguments.
// [Reply.Usage] overrides the count.
//
// # Embeddings and rerank
//
// POST /v1/embeddings answers as OpenAI's embeddings API does, with a
// deterministic hashed bag of words (see [Embed]): lowercase words, CJK
// characters and CJK character pairs are hashed into buckets holding term
// frequencies, and the vector is L2-normalised, so texts sharing words are
// closer than texts sharing none. The vector length is N when the model
// name ends in "-dim<N>" (e.g. "fake-embed-dim64": a model of fixed length
// that, like many local models, ignores the request's dimensions), else the
// request's dimensions, else [DefaultDimensions]. input is a string, an
// array of strings, an array of tokens or an array of token arrays;
// encoding_format is "float" (the default) or "base64". Like OpenAI it
// answers 400 with an invalid_request_error for a missing model, a missing
// or empty input (an empty string included), more than [MaxEmbedInputs]
// inputs, an input over [MaxEmbedTokens] tokens (ceil(runes/4), or the
// token array's length), an unknown encoding_format and dimensions below 1
// (or above [MaxEmbedDims]). usage.prompt_tokens sums the inputs' tokens.
//
// POST /v1/rerank answers in the Jina shape ({model, query, documents,
// top_n, return_documents} in; {results:[{index, relevance_score,
// document}]} out, best first): the score is the cosine of the query's and
// the document's fake embeddings. A missing model or query, no documents
// or top_n below 1 is a 400.
//
// [Server.FailEmbeddings] makes the next n embedding or rerank requests
// fail, e.g. with 429 and Retry-After, to test retries;
// [Server.EmbedStats] (and GET /v1/fake/stats) counts the requests and
// inputs received, to test batching.
package fakellm
