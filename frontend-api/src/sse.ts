// Server-Sent Events as Pergola streams them (/v3/chat, workflow runs, web
// chat, OpenAI streams): `event:`, `data:` (several lines joined by "\n"),
// `id:`, comments ignored, an event ending at a blank line.

/** One Server-Sent Event. */
export interface SSEEvent {
  /** The event name; "message" when the event has none (OpenAI's chunks). */
  event: string;
  /** The data lines, joined by "\n". */
  data: string;
  id?: string;
}

/** The event's data parsed as JSON (undefined for OpenAI's "[DONE]" or other non-JSON data). */
export function eventJSON<T = unknown>(e: SSEEvent): T | undefined {
  try {
    return JSON.parse(e.data) as T;
  } catch {
    return undefined;
  }
}

/** Yields the events of an SSE body as they arrive. */
export async function* readSSE(body: ReadableStream<Uint8Array>): AsyncGenerator<SSEEvent, void, undefined> {
  const decoder = new TextDecoder();
  let buf = "";
  let cur = blank();
  const reader = body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      buf += done ? decoder.decode() : decoder.decode(value, { stream: true });
      const lines = buf.split(/\r\n|\r|\n/);
      buf = done ? "" : (lines.pop() ?? "");
      for (const line of lines) {
        if (line === "") {
          if (cur.hasData) yield finish(cur);
          cur = blank();
        } else {
          field(cur, line);
        }
      }
      if (done) break;
    }
    if (cur.hasData) yield finish(cur);
  } finally {
    reader.releaseLock();
  }
}

interface Pending {
  event: string;
  data: string[];
  id: string | undefined;
  hasData: boolean;
}

function blank(): Pending {
  return { event: "", data: [], id: undefined, hasData: false };
}

function field(cur: Pending, line: string): void {
  if (line.startsWith(":")) return;
  const colon = line.indexOf(":");
  const name = colon < 0 ? line : line.slice(0, colon);
  let value = colon < 0 ? "" : line.slice(colon + 1);
  if (value.startsWith(" ")) value = value.slice(1);
  if (name === "event") cur.event = value;
  else if (name === "id") cur.id = value;
  else if (name === "data") {
    cur.data.push(value);
    cur.hasData = true;
  }
}

function finish(cur: Pending): SSEEvent {
  const e: SSEEvent = { event: cur.event || "message", data: cur.data.join("\n") };
  if (cur.id !== undefined) e.id = cur.id;
  return e;
}
