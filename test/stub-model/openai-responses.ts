// The OpenAI Responses API dialect, as Codex 0.171.0 uses it (custom provider with
// `wire_api = "responses"`, base_url `<stub.url>/v1`): main turns from the script, and fixed
// answers to its side requests (the thread title, the `--approve-for-me` guardian).
import type { Dialect, DialectContext, DialectRequest } from "./dialect.ts";
import { answerResponses, type ResponsesReply } from "./openai-answer.ts";
import {
  type ClassifiedResponses,
  classifyResponses,
  type ResponsesBody,
  readResponsesBody,
} from "./openai-request.ts";
import { renderErrorBody } from "./openai-wire.ts";
import { text, toolUse } from "./replies.ts";
import type { MainTurn } from "./types.ts";

/** The answer to the thread-title request (its schema is `{title: string}`). */
export const STUB_CODEX_TITLE = "Stub title";

/** The justification a `stub:escalate` tool call gives; Codex shows it as the approval's `Reason:`. */
export const ESCALATE_REASON = "stub escalation";

export const openaiDialect: Dialect = {
  handle(request, context) {
    const { method, path, record } = request;
    if (method === "POST" && /^(\/v1)?\/responses$/.test(path)) {
      const body = readResponsesBody(request.body);
      const classified = classifyResponses(body);
      Object.assign(record, { kind: classified.kind, stream: body.stream, model: body.model });
      if (classified.kind === "main") record.main = classified.turn;
      const prompt = promptOf(classified);
      if (prompt !== undefined) record.prompt = prompt;
      return answerResponses(chooseReply(classified, body, request, context), body, request, context);
    }
    // The built-in provider tries a WebSocket upgrade first; refusing it makes Codex fall back to POST.
    if (method === "GET" && /^(\/v1)?\/responses$/.test(path)) {
      record.answered = "error 404";
      return Response.json(renderErrorBody(404, "stub model: no websocket"), { status: 404 });
    }
    if (method === "GET" && /^(\/v1)?\/models/.test(path)) {
      Object.assign(record, { kind: "models", answered: "models" });
      return Response.json(renderModels());
    }
    if (method === "HEAD" || method === "GET") {
      Object.assign(record, { kind: "probe", answered: "probe" });
      return new Response(method === "HEAD" ? null : "ok");
    }
    record.answered = "error 404";
    return Response.json(renderErrorBody(404, `stub model: no route ${method} ${path}`), { status: 404 });
  },
};

function chooseReply(
  classified: ClassifiedResponses,
  body: ResponsesBody,
  request: DialectRequest,
  context: DialectContext,
): ResponsesReply {
  switch (classified.kind) {
    case "main": {
      const { reply, source } = context.script.nextForMain(classified.turn, body.toolNames);
      return source === "default" ? (parseResponsesDirective(classified.turn) ?? reply) : reply;
    }
    case "title":
      return text(JSON.stringify({ title: STUB_CODEX_TITLE }));
    case "classifier": {
      const deny = context.classifier === "deny" || JSON.stringify(request.body).includes("stub:deny");
      const verdict = { ...fillSchema(body.schema ?? {}), outcome: deny ? "deny" : "allow" };
      return text(JSON.stringify(verdict));
    }
    case "other":
      return text(JSON.stringify(fillSchema(body.schema ?? {})));
  }
}

/**
 * Directives only this dialect knows, looked at when nothing else answered a prompt:
 * `stub:failed` (a `response.failed` event), `stub:stall` (headers and a first delta, then silence)
 * and `stub:escalate <command>` (an exec_command asking to leave the sandbox, which makes Codex
 * ask for approval unless it runs with approvals bypassed).
 */
function parseResponsesDirective(turn: MainTurn): ResponsesReply | null {
  if (turn.trigger !== "prompt") return null;
  const match = /(?:^|\s)stub:(failed|stall|escalate)(?=\s|$)([^\n]*)/.exec(turn.prompt);
  if (!match) return null;
  if (match[1] === "failed") return { kind: "failed" };
  if (match[1] === "stall") return { kind: "stall" };
  const command = match[2]?.split(/\sstub:[a-z]/)[0]?.trim() || "touch escalated.txt";
  return toolUse("exec_command", {
    cmd: command,
    sandbox_permissions: "require_escalated",
    justification: ESCALATE_REASON,
  });
}

function promptOf(classified: ClassifiedResponses): string | undefined {
  if (classified.kind === "title" || classified.kind === "classifier") return classified.prompt;
  if (classified.kind === "main" && classified.turn.trigger === "prompt") return classified.turn.prompt;
  return undefined;
}

/** A minimal value for a structured-output schema: its required properties filled by type. */
function fillSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required.map(String) : Object.keys(properties);
  return Object.fromEntries(
    required.map((key) => {
      const property = properties[key];
      const type = isObject(property) ? String(property.type) : "string";
      const choices = isObject(property) && Array.isArray(property.enum) ? property.enum : [];
      if (choices.length > 0) return [key, choices[0]];
      if (type === "object" && isObject(property)) return [key, fillSchema(property)];
      const filler: Record<string, unknown> = { number: 0, integer: 0, boolean: false, array: [] };
      return [key, filler[type] ?? "stub"];
    }),
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function renderModels(): Record<string, unknown> {
  const ids = ["stub-model", "gpt-5.5-codex"];
  return { object: "list", data: ids.map((id) => ({ id, object: "model", created: 0, owned_by: "stub" })) };
}
