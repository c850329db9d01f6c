// @coze/api's workflows.chat.stream driving a chatflow that asks, as
// coze-workflows.test.ts drives one that answers: the question streams as
// the bot's answer (text; an options question as Coze's card, whose
// x_properties.workflow_card_info names the title and options), the chat
// ends conversation.chat.requires_action, and the conversation's next
// message is the answer (one that is not an option is asked again).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { ChatEventType, CozeAPI, RoleType, type ChatV3Message, type CreateChatData, type StreamChatData } from "@coze/api";

import type { WorkflowDefinition } from "../src/index.js";
import { env, NUMERIC_ID } from "./env.js";
import { collect, Fixture } from "./fixtures.js";

const E = ChatEventType;
const ASKED_TEXT = "chat.created,chat.in_progress,message.delta,message.completed,chat.requires_action,done";
const ASKED_CARD = "chat.created,chat.in_progress,message.completed,chat.requires_action,done";

describe("@coze/api: chatflow questions", { timeout: 120_000 }, () => {
  const fx = new Fixture();
  const sdk = new CozeAPI({ token: env.token, baseURL: env.baseURL });

  before(() => fx.setup());
  after(() => fx.cleanup());

  const turn = async (workflowId: string, text: string, conversationId?: string) => {
    const events: StreamChatData[] = await collect(
      sdk.workflows.chat.stream({
        workflow_id: workflowId,
        additional_messages: [{ role: RoleType.User, content: text, content_type: "text" }],
        ...(conversationId ? { conversation_id: conversationId } : {}),
      }),
    );
    const short = events.map((e) => e.event.replace(/^conversation\./, "")).join(",");
    return { events, short, chat: events[0]!.data as CreateChatData };
  };

  it("workflows.chat.stream: a question, then an options card, answered by the next messages; the run resumes to its answer", async () => {
    const w = await fx.workflow(askingChatflow());
    const first = await turn(w.id, "hi");
    assert.equal(first.short, ASKED_TEXT);
    const asked = first.events[3]!.data as ChatV3Message;
    assert.equal(asked.content_type, "text");
    assert.equal(asked.content, "What is your name?");
    assert.equal(asked.type, "answer");
    const waiting = first.events[4]!.data as CreateChatData;
    assert.equal(waiting.status, "requires_action");
    assert.match(waiting.conversation_id, NUMERIC_ID);
    const conv = waiting.conversation_id;

    const second = await turn(w.id, "Ada", conv);
    assert.equal(second.short, ASKED_CARD);
    assert.equal(second.chat.id, first.chat.id, "the same run goes on");
    const card = second.events[2]!.data as ChatV3Message;
    assert.equal(card.content_type, "card");
    const envelope = JSON.parse(card.content) as { card_type: number; response_type: string; x_properties: Record<string, string> };
    assert.equal(envelope.card_type, 3);
    assert.equal(envelope.response_type, "card");
    assert.deepEqual(JSON.parse(envelope.x_properties.workflow_card_info!), {
      card_type: "QUESTION",
      question_card_data: { Title: "Tea or coffee, Ada?", Options: [{ name: "Tea" }, { name: "Coffee" }] },
    });

    const wrong = await turn(w.id, "Juice", conv);
    assert.equal(wrong.short, ASKED_CARD, "an answer that is no option asks again");

    const last = await turn(w.id, "coffee", conv);
    assert.match(last.short, /^chat\.created,chat\.in_progress,(message\.delta,)+message\.completed,chat\.completed,done$/, last.short);
    const answer = last.events.find((e) => e.event === E.CONVERSATION_MESSAGE_COMPLETED)!.data as ChatV3Message;
    assert.equal(answer.content, "Ada drinks Coffee");
    assert.equal(last.chat.id, first.chat.id);

    const again = await turn(w.id, "again", conv);
    assert.equal(again.short, ASKED_TEXT, "nothing waits: a new run asks from the start");
    assert.notEqual(again.chat.id, first.chat.id);
  });
});

/** start → question "What is your name?" → option question (Tea, Coffee) → end "{{n}} drinks {{d}}". */
function askingChatflow(): WorkflowDefinition {
  return {
    nodes: [
      { id: "start", type: "start", outputs: [{ name: "USER_INPUT", type: "string" }] },
      { id: "name", type: "question", config: { question: "What is your name?" } },
      {
        id: "drink",
        type: "question",
        config: { question: "Tea or coffee, {{n}}?", answer_type: "option", options: ["Tea", "Coffee"] },
        inputs: { n: { ref: { node: "name", path: "answer" } } },
      },
      {
        id: "end",
        type: "end",
        config: { mode: "text", template: "{{n}} drinks {{d}}" },
        inputs: { n: { ref: { node: "name", path: "answer" } }, d: { ref: { node: "drink", path: "answer" } } },
      },
    ],
    edges: [
      { from: "start", to: "name" },
      { from: "name", to: "drink" },
      { from: "drink", to: "end" },
    ],
  };
}
