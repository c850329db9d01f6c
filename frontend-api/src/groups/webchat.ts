// The public routes of channels: the hosted web chat of `web` channels
// (end-user tokens, not PATs) and the inbound events of `webhook` channels
// (signed with the channel's secret, no token).
import { s, type Caller, type ID, type Rest } from "../caller.js";
import type { Body, Query } from "../ops.js";

type Messages = "/chat/{channel_id}/messages";
type Inbound = "/channels/{kind}/{channel_id}";

export function webchat(c: Caller) {
  const path = (channelId: ID) => ({ channel_id: s(channelId) });
  return {
    /** The channel's public settings (title, welcome, ...). */
    config: (channelId: ID, opts?: Rest<"/chat/{channel_id}/config", "get">) =>
      c.call("get", "/chat/{channel_id}/config", { path: path(channelId), auth: false, ...opts }),
    /** The hosted chat page (HTML). */
    page: (channelId: ID, opts?: Rest<"/chat/{channel_id}", "get">) =>
      c.callText("get", "/chat/{channel_id}", { path: path(channelId), auth: false, ...opts }),
    /**
     * Starts an anonymous end user (no token), or renews / checks the end
     * user's token (an anonymous one, or a JWT the site signed).
     */
    session: (channelId: ID, endUserToken?: string, opts?: Rest<"/chat/{channel_id}/session", "post">) =>
      c.call("post", "/chat/{channel_id}/session", { path: path(channelId), auth: endUserToken ?? false, ...opts }),
    /** The end user's current conversation, oldest first. */
    messages: (channelId: ID, endUserToken: string, opts?: Rest<Messages, "get">) =>
      c.call("get", "/chat/{channel_id}/messages", { path: path(channelId), auth: endUserToken, ...opts }),
    /** Sends a message; events `message`, `delta`, `follow_up`, then `done` or `error`. */
    send: (channelId: ID, endUserToken: string, body: Body<Messages, "post">, opts?: Rest<Messages, "post">) =>
      c.callStream("post", "/chat/{channel_id}/messages", { path: path(channelId), auth: endUserToken, body, ...opts }),
    /** Starts a new conversation for the end user. */
    reset: (channelId: ID, endUserToken: string, opts?: Rest<"/chat/{channel_id}/reset", "post">) =>
      c.call("post", "/chat/{channel_id}/reset", { path: path(channelId), auth: endUserToken, ...opts }),
    /** The embed script a site loads to show the chat as a widget or bubble (JavaScript). */
    embedScript: (opts?: Rest<"/embed.js", "get">) => c.callText("get", "/embed.js", { auth: false, ...opts }),
    /** The hosted page's widget script (JavaScript); `v` is its version, as the page asks for it. */
    widgetScript: (
      query?: Query<"/chat/assets/widget.js", "get">,
      opts?: Rest<"/chat/assets/widget.js", "get">,
    ) => c.callText("get", "/chat/assets/widget.js", { query, auth: false, ...opts }),
  };
}

/**
 * The `X-Pergola-Signature` of a webhook event: `t=<unix seconds>,v1=<hex
 * HMAC-SHA256(secret, "<t>.<raw body>")>`.
 */
export async function webhookSignature(
  secret: string,
  rawBody: string,
  t = Math.floor(Date.now() / 1000),
): Promise<string> {
  const enc = new TextEncoder();
  const key = await crypto.subtle.importKey("raw", enc.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, enc.encode(`${t}.${rawBody}`)));
  const hex = Array.from(mac, (b) => b.toString(16).padStart(2, "0")).join("");
  return `t=${t},v1=${hex}`;
}

export function inbound(c: Caller) {
  return {
    /**
     * Posts an event to a `webhook` channel, signed with its secret; the
     * answer is the bot's (200) or `{event_id, status: "accepted"}` (202,
     * when the channel has a callback_url).
     */
    webhook: async (channelId: ID, secret: string, event: Body<Inbound, "post">, opts?: Rest<Inbound, "post">) => {
      const raw = JSON.stringify(event);
      const sig = await webhookSignature(secret, raw);
      return c.callPlain("post", "/channels/{kind}/{channel_id}", {
        path: { kind: "webhook", channel_id: s(channelId) },
        body: event,
        text: { body: raw, contentType: "application/json" },
        auth: false,
        ...opts,
        headers: { "X-Pergola-Signature": sig, ...opts?.headers },
      });
    },
  };
}
