// The Anthropic Messages API dialect, as Claude Code uses it: main turns from the script, and
// fixed answers to its side requests (session title, auto-mode classifier, subagent report).
import { answerReply, requestId } from "./anthropic-answer.ts";
import {
  type Classified,
  classifyMessages,
  isRecord,
  type MessagesBody,
  readMessagesBody,
} from "./anthropic-request.ts";
import { estimateTokens, renderErrorBody } from "./anthropic-wire.ts";
import type { Dialect, DialectContext, DialectRequest } from "./dialect.ts";
import { renderPromptEcho } from "./digest.ts";
import { wantsDeny } from "./directives.ts";
import { text, toolUse } from "./replies.ts";
import type { StubReply } from "./types.ts";

/** The verdicts of the auto-mode classifier; Claude Code stops stage 1 at `</block>`. */
const ALLOW = "<block>no</block>";
const DENY =
  "<block>yes</block><category>stub</category>" +
  "<reason>[Stub Deny] the conversation asked the stub to deny this action</reason>";
/** The answer to the session-title request (its schema is `{title: string}`). */
const STUB_TITLE = "Stub title";

export const anthropicDialect: Dialect = {
  handle(request, context) {
    const { method, path, record } = request;
    if (method === "POST" && path === "/v1/messages") {
      const body = readMessagesBody(request.body);
      const classified = classifyMessages(body, request.headers);
      Object.assign(record, { kind: classified.kind, stream: body.stream, model: body.model });
      if (classified.kind === "main") record.main = classified.turn;
      const prompt = promptOf(classified);
      if (prompt !== undefined) record.prompt = prompt;
      return answerReply(chooseReply(classified, body, request, context), body, request, context);
    }
    if (method === "POST" && path === "/v1/messages/count_tokens") {
      Object.assign(record, { kind: "count_tokens", answered: "count_tokens" });
      const messages = isRecord(request.body) ? request.body.messages : undefined;
      return Response.json({ input_tokens: estimateTokens(messages) });
    }
    if (method === "GET" && path.startsWith("/v1/models")) {
      Object.assign(record, { kind: "models", answered: "models" });
      return Response.json(renderModels(path));
    }
    // Claude Code probes `HEAD /api/hello` before its first request; any other probe gets a 200 too.
    if (method === "HEAD" || method === "GET") {
      Object.assign(record, { kind: "probe", answered: "probe" });
      return new Response(method === "HEAD" ? null : "ok");
    }
    record.answered = "error 404";
    const error = renderErrorBody(404, `stub model: no route ${method} ${path}`, requestId(record.seq));
    return Response.json(error, { status: 404 });
  },
};

function chooseReply(
  classified: Classified,
  body: MessagesBody,
  request: DialectRequest,
  context: DialectContext,
): StubReply {
  switch (classified.kind) {
    case "main":
      return context.script.nextForMain(classified.turn, body.toolNames).reply;
    case "classifier": {
      const deny = context.classifier === "deny" || wantsDeny(JSON.stringify(request.body));
      return text(deny ? DENY : ALLOW);
    }
    case "title":
      return text(JSON.stringify({ title: STUB_TITLE }));
    case "other":
      return text(body.schema ? JSON.stringify(fillSchema(body.schema)) : "STUB-OK");
    case "subagent": {
      // In the TUI a subagent's report reaches its parent only through the SubagentHandback tool:
      // plain final text makes Claude Code re-prompt it three times and then report a failed
      // delivery. Under `-p` there is no such tool and the final text is the report.
      if (classified.turn.trigger === "tool_result") return text("STUB-SUBAGENT-DONE");
      const report = renderPromptEcho(classified.prompt, "STUB-SUBAGENT-REPORT");
      return classified.canHandBack ? toolUse("SubagentHandback", { message: report }) : text(report);
    }
  }
}

function promptOf(classified: Classified): string | undefined {
  if (classified.kind === "title" || classified.kind === "subagent") return classified.prompt;
  if (classified.kind === "main" && classified.turn.trigger === "prompt") return classified.turn.prompt;
  return undefined;
}

/** A minimal value for a structured-output schema: its required properties filled by type. */
function fillSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const properties = isRecord(schema.properties) ? schema.properties : {};
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
      const property = properties[key];
      const type = isRecord(property) ? String(property.type) : "string";
      return [key, type === "object" && isRecord(property) ? fillSchema(property) : (filler[type] ?? "stub")];
    }),
  );
}

function renderModels(path: string): Record<string, unknown> {
  const model = (id: string) => ({
    type: "model",
    id,
    display_name: `${id} (stub)`,
    created_at: "2026-01-01T00:00:00Z",
  });
  const one = path.slice("/v1/models/".length);
  if (one !== "") return model(decodeURIComponent(one));
  const ids = ["claude-opus-5-5", "claude-sonnet-5", "claude-haiku-4-5"];
  return { data: ids.map(model), has_more: false, first_id: ids[0], last_id: ids.at(-1) };
}
