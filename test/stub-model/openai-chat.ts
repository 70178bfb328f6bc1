// The OpenAI Chat Completions dialect, as opencode 1.18.33 uses it through a custom provider
// (`"npm": "@ai-sdk/openai-compatible"`, `options.baseURL` = `<stub.url>/v1`):
//   POST /v1/chat/completions   the agent loop (main, scripted) and the session-title side request
//   GET  /v1/models             a short list
// Replies use the shared vocabulary (replies.ts); Claude Code's tool names map to opencode's
// (Bash → bash, Write → write with `filePath`), so `stub:bash` and `stub:write` work unchanged.
import { type Dialect, type DialectContext, type DialectRequest, hangUntilStopped } from "./dialect.ts";
import { openaiLimit } from "./limits.ts";
import { type ChatBody, type ClassifiedChat, classifyChat, readChatBody } from "./openai-chat-request.ts";
import {
  type ChatWireMessage,
  planBrokenChatFrames,
  planChatFrames,
  renderChatError,
  renderChatJson,
} from "./openai-chat-wire.ts";
import { text, toolUse } from "./replies.ts";
import { streamFrames } from "./sse-response.ts";
import type { MainTurn, StubBlock, StubReply } from "./types.ts";

/** The answer to the title request (opencode shows it in the sidebar and `session list`). */
export const STUB_CHAT_TITLE = "Stub title";
/** The question a `stub:question` tool call asks, and its two options. */
export const STUB_QUESTION = { question: "Which color?", header: "Color", options: ["Red", "Blue"] } as const;
/** Text pieces per message when a reply does not ask for pacing: enough to exercise reassembly. */
const DEFAULT_CHUNKS = 3;

/** What this dialect can answer: the shared replies plus an error object inside the stream. */
export type ChatReply = StubReply | { kind: "stream-error" };

export const openaiChatDialect: Dialect = {
  handle(request, context) {
    const { method, path, record } = request;
    if (method === "POST" && /^(\/v1)?\/chat\/completions$/.test(path)) {
      const body = readChatBody(request.body);
      const classified = classifyChat(body);
      Object.assign(record, { kind: classified.kind, stream: body.stream, model: body.model });
      if (classified.kind === "main") {
        record.main = classified.turn;
        if (classified.turn.trigger === "prompt") record.prompt = classified.turn.prompt;
      } else record.prompt = classified.prompt;
      return answerChat(chooseReply(classified, context), body, request, context);
    }
    if (method === "GET" && /^(\/v1)?\/models\/?$/.test(path)) {
      Object.assign(record, { kind: "models", answered: "models" });
      const data = ["stub-model"].map((id) => ({ id, object: "model", created: 0, owned_by: "stub" }));
      return Response.json({ object: "list", data });
    }
    if (method === "HEAD" || method === "GET") {
      Object.assign(record, { kind: "probe", answered: "probe" });
      return new Response(method === "HEAD" ? null : "ok");
    }
    record.answered = "error 404";
    return Response.json(renderChatError(404, `stub model: no route ${method} ${path}`), { status: 404 });
  },
};

function chooseReply(classified: ClassifiedChat, context: DialectContext): ChatReply {
  if (classified.kind === "title") return text(STUB_CHAT_TITLE);
  const { reply, source } = context.script.nextForMain(classified.turn);
  return source === "default" ? (parseChatDirective(classified.turn) ?? reply) : reply;
}

/**
 * Directives only this dialect knows, looked at when nothing else answered a prompt:
 * `stub:question` (opencode's `question` tool: a box with two options) and `stub:streamerror` (an
 * error object inside the stream).
 */
function parseChatDirective(turn: MainTurn): ChatReply | null {
  if (turn.trigger !== "prompt") return null;
  const match = /(?:^|\s)stub:(question|streamerror)(?=\s|$)/.exec(turn.prompt);
  if (!match) return null;
  if (match[1] === "streamerror") return { kind: "stream-error" };
  const { question, header, options } = STUB_QUESTION;
  const asked = { question, header, options: options.map((label) => ({ label, description: label })) };
  return toolUse("question", { questions: [asked] });
}

/** Sets `record.answered` synchronously, then answers (a promise only for delays and hangs). */
function answerChat(
  reply: ChatReply,
  body: ChatBody,
  request: DialectRequest,
  context: DialectContext,
): Response | Promise<Response> {
  const { record } = request;
  const headers = { "x-request-id": `req_stub_${record.seq}` };
  const shell: ChatWireMessage = {
    id: `chatcmpl-stub-${record.seq}`,
    model: body.model,
    text: "",
    reasoning: "",
    calls: [],
    promptTokens: Math.max(1, Math.ceil(body.messages.reduce((n, m) => n + m.text.length, 0) / 4)),
  };
  switch (reply.kind) {
    case "error":
      record.answered = `error ${reply.status}`;
      return Response.json(renderChatError(reply.status, reply.message ?? `stub error ${reply.status}`), {
        status: reply.status,
        headers: { ...headers, ...reply.headers },
      });
    case "limit": {
      // The Responses dialect's usage-limit 429 (an OpenAI-style body and headers). umbel reads no
      // usage limit from opencode (no Provider.limits): not measured against the real opencode.
      record.answered = "limit";
      const limit = openaiLimit(reply);
      return Response.json(limit.body, { status: 429, headers: { ...headers, ...limit.headers } });
    }
    case "hang":
      record.answered = "hang";
      return hangUntilStopped(request, context);
    case "malformed":
    case "cut":
    case "stream-error": {
      record.answered = reply.kind;
      const how = reply.kind === "stream-error" ? "error" : reply.kind;
      return streamFrames(planBrokenChatFrames(shell, how), { cut: reply.kind === "cut", headers });
    }
    case "message": {
      const message = { ...shell, ...toWire(reply.blocks, record.seq) };
      const ids = message.calls.map((call) => call.id);
      if (reply.then !== undefined && ids.length > 0) context.script.remember(ids, reply.then);
      record.answered = `message ${reply.blocks.map((block) => block.type).join("+")}`;
      const frames = planChatFrames(message, {
        chunks: reply.chunks ?? DEFAULT_CHUNKS,
        chunkDelayMs: reply.chunkDelayMs ?? 0,
        includeUsage: body.includeUsage,
      });
      const respond = () =>
        body.stream ? streamFrames(frames, { headers }) : Response.json(renderChatJson(message), { headers });
      return reply.delayMs ? Bun.sleep(reply.delayMs).then(respond) : respond();
    }
  }
}

function toWire(
  blocks: readonly StubBlock[],
  seq: number,
): Pick<ChatWireMessage, "text" | "reasoning" | "calls"> {
  let textOut = "";
  let reasoning = "";
  const calls: ChatWireMessage["calls"] = [];
  for (const [index, block] of blocks.entries()) {
    if (block.type === "text") textOut += block.text;
    else if (block.type === "thinking") reasoning += block.thinking;
    else {
      const { name, input } = translateTool(block.name, block.input);
      calls.push({ id: block.id ?? `call_stub_${seq}_${index}`, name, arguments: JSON.stringify(input) });
    }
  }
  return { text: textOut, reasoning, calls };
}

/** opencode's `bash` takes `{command, description}`, its `write` `{filePath, content}`. */
function translateTool(
  name: string,
  input: Record<string, unknown>,
): { name: string; input: Record<string, unknown> } {
  if (name === "Bash")
    return { name: "bash", input: { command: input.command, description: input.description ?? "stub bash" } };
  if (name === "Write")
    return { name: "write", input: { filePath: input.file_path, content: input.content } };
  return { name, input };
}
