// The Gemini API dialect, as gemini-cli 0.61.0 uses it (GOOGLE_GEMINI_BASE_URL=stub.url):
//   POST /v1beta/models/<model>:streamGenerateContent?alt=sse   the agent loop (main, scripted)
//   POST /v1beta/models/<model>:generateContent                 side requests: the Auto router,
//        the startup summary of the previous session, other structured output
//   POST /v1beta/models/<model>:countTokens, GET /v1beta/models  fixed answers
// Replies use the shared vocabulary (replies.ts); Claude Code's tool names map to gemini-cli's
// (Bash → run_shell_command, Write → write_file), so `stub:bash` and `stub:write` work unchanged.
import { type Dialect, type DialectContext, type DialectRequest, hangUntilStopped } from "./dialect.ts";
import {
  classifyGemini,
  type GeminiBody,
  type GeminiClassified,
  parseRoute,
  readGeminiBody,
} from "./gemini-request.ts";
import {
  estimateGeminiTokens,
  type GeminiPart,
  type GeminiWireMessage,
  planBrokenGeminiFrames,
  planGeminiFrames,
  renderGeminiError,
  renderGeminiJson,
} from "./gemini-wire.ts";
import { geminiLimitMessage } from "./limits.ts";
import { text } from "./replies.ts";
import { streamFrames } from "./sse-response.ts";
import type { StubBlock, StubReply } from "./types.ts";

/** The answer to the startup summary request (gemini-cli stores it in the previous transcript). */
const STUB_SUMMARY = "Stub summary";
/** Text pieces per part when a reply does not ask for pacing: enough to exercise reassembly. */
const DEFAULT_CHUNKS = 3;
/** Claude Code tool names used by replies.ts and the directives, as gemini-cli calls the same tools. */
const TOOL_NAMES: Record<string, string> = { Bash: "run_shell_command", Write: "write_file" };

export const geminiDialect: Dialect = {
  handle(request, context) {
    const { method, path, record } = request;
    const route = parseRoute(path);
    if (method === "POST" && route && route.method !== "other") {
      const body = readGeminiBody(request.body);
      record.model = route.model;
      if (route.method === "countTokens") {
        Object.assign(record, { kind: "count_tokens", answered: "count_tokens" });
        return Response.json({ totalTokens: estimateGeminiTokens(body.contents) });
      }
      const classified = classifyGemini(route, body);
      record.kind = classified.kind;
      record.stream = route.method === "streamGenerateContent";
      if (classified.kind === "main") {
        record.main = classified.turn;
        if (classified.turn.trigger === "prompt") record.prompt = classified.turn.prompt;
      } else if (classified.prompt !== "") record.prompt = classified.prompt;
      return answerGemini(
        chooseReply(classified, body, context),
        record.stream,
        route.model,
        request,
        context,
      );
    }
    if (method === "GET" && /^\/v1(beta|alpha)?\/models\/?$/.test(path)) {
      Object.assign(record, { kind: "models", answered: "models" });
      return Response.json(renderModels());
    }
    if (method === "HEAD" || method === "GET") {
      Object.assign(record, { kind: "probe", answered: "probe" });
      return new Response(method === "HEAD" ? null : "ok");
    }
    record.answered = "error 404";
    return Response.json(renderGeminiError(404, `stub model: no route ${method} ${path}`), { status: 404 });
  },
};

function chooseReply(classified: GeminiClassified, body: GeminiBody, context: DialectContext): StubReply {
  switch (classified.kind) {
    case "main":
      return context.script.nextForMain(classified.turn, body.toolNames).reply;
    case "classifier":
      return text(JSON.stringify({ complexity_reasoning: "stub router", complexity_score: 1 }));
    case "title":
      return text(STUB_SUMMARY);
    case "other":
      return text(body.schema ? JSON.stringify(fillSchema(body.schema)) : "STUB-OK");
  }
}

/** Sets `record.answered` synchronously, then answers (a promise only for delays and hangs). */
function answerGemini(
  reply: StubReply,
  stream: boolean,
  model: string,
  request: DialectRequest,
  context: DialectContext,
): Response | Promise<Response> {
  const { record } = request;
  const shell = { responseId: `stub-${record.seq}`, model, promptTokens: estimateGeminiTokens(request.body) };
  switch (reply.kind) {
    case "error":
      record.answered = `error ${reply.status}`;
      return Response.json(renderGeminiError(reply.status, reply.message ?? `stub error ${reply.status}`), {
        status: reply.status,
        ...(reply.headers ? { headers: reply.headers } : {}),
      });
    case "limit":
      record.answered = "limit";
      return Response.json(renderGeminiError(429, geminiLimitMessage(reply)), { status: 429 });
    case "hang":
      record.answered = "hang";
      return hangUntilStopped(request, context);
    case "malformed":
    case "cut": {
      record.answered = reply.kind;
      const frames = planBrokenGeminiFrames({ ...shell, parts: [] }, reply.kind);
      if (stream) return streamFrames(frames, { cut: reply.kind === "cut" });
      return streamFrames([{ data: '{"candidates":[{"content":{"parts":[{"text":"STUB', delayMs: 0 }], {
        cut: reply.kind === "cut",
        headers: { "content-type": "application/json" },
      });
    }
    case "message": {
      const parts = toGeminiParts(reply.blocks, record.seq);
      const calls = parts.flatMap((part) => ("functionCall" in part ? [part.functionCall] : []));
      // gemini-cli prefixes a call id with `<tool>__` unless it already starts so; remember both.
      if (reply.then !== undefined && calls.length > 0) {
        context.script.remember(
          calls.flatMap((call) => [call.id, `${call.name}__${call.id}`]),
          reply.then,
        );
      }
      record.answered = `message ${reply.blocks.map((block) => block.type).join("+")}`;
      const message: GeminiWireMessage = { ...shell, parts };
      const respond = () =>
        stream
          ? streamFrames(planGeminiFrames(message, reply.chunks ?? DEFAULT_CHUNKS, reply.chunkDelayMs ?? 0))
          : Response.json(renderGeminiJson(message));
      return reply.delayMs ? Bun.sleep(reply.delayMs).then(respond) : respond();
    }
  }
}

function toGeminiParts(blocks: readonly StubBlock[], seq: number): GeminiPart[] {
  return blocks.map((block, index) => {
    if (block.type === "text") return { text: block.text };
    if (block.type === "thinking") return { text: block.thinking, thought: true };
    const name = TOOL_NAMES[block.name] ?? block.name;
    return {
      functionCall: {
        id: block.id ?? `stub_call_${seq}_${index}`,
        name,
        args: toGeminiArgs(name, block.input),
      },
    };
  });
}

/** Claude Code's Write takes `file_path` + `content`, like write_file; Bash's `command` fits run_shell_command. */
function toGeminiArgs(name: string, input: Record<string, unknown>): Record<string, unknown> {
  if (name === "run_shell_command")
    return { command: input.command, description: input.description ?? "stub shell" };
  return input;
}

/** A minimal value for a structured-output schema: required properties filled by type (enums: the first). */
function fillSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = Array.isArray(schema.required) ? schema.required.map(String) : Object.keys(properties);
  const filler: Record<string, unknown> = {
    string: "stub",
    number: 0,
    integer: 0,
    boolean: false,
    array: [],
  };
  return Object.fromEntries(
    required.map((key) => {
      const property = properties[key] ?? {};
      const type = String(property.type ?? "string").toLowerCase();
      if (Array.isArray(property.enum) && property.enum.length > 0) return [key, property.enum[0]];
      return [key, type === "object" ? fillSchema(property) : (filler[type] ?? "stub")];
    }),
  );
}

function renderModels(): Record<string, unknown> {
  const ids = ["gemini-2.5-pro", "gemini-2.5-flash", "gemini-3.1-pro-preview"];
  return {
    models: ids.map((id) => ({
      name: `models/${id}`,
      displayName: `${id} (stub)`,
      supportedGenerationMethods: ["generateContent", "streamGenerateContent", "countTokens"],
    })),
  };
}
