import {
  ClientRequestSchema,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import { splitJsonValues } from "./split-json.ts";

/**
 * What the server does with one line of stdin, decided before the SDK sees it. The SDK's stdio
 * transport drops a line it cannot parse with its schema and only reports it to `onerror`, so
 * `"params":"x"`, id 1.5, `"method":123` or two objects on one line got no reply and the client
 * waited forever; `tools/call` without params answered -32603 with a zod dump. Here every line that
 * carries an id gets exactly one JSON-RPC error naming the problem in one line; a line that is not
 * JSON gets id null (JSON-RPC 2.0 §5); notifications and responses are never answered.
 */

export const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const INVALID_PARAMS = -32602;

/** A JSON-RPC error as sent: the id echoed when the line had a usable one, else null. */
export type GuardReply = {
  jsonrpc: "2.0";
  id: string | number | null;
  error: { code: number; message: string };
};

/** The message to hand to the SDK, or the replies to send instead (none: drop it). */
export type Screened = { message?: JSONRPCMessage; replies: GuardReply[] };

const MEMBERS = new Set(["jsonrpc", "id", "method", "params"]);
const ONE_PER_LINE = "send one message per line";

export function screenLine(line: string): Screened {
  const text = line.trim();
  if (text === "") return { replies: [] };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { replies: parseFailure(text, error) };
  }
  if (Array.isArray(value)) {
    const ids = value.flatMap((item) => (isObject(item) && "id" in item ? [echo(item.id)] : []));
    const reason = `Invalid request: batches are not supported (MCP has none); ${ONE_PER_LINE}`;
    return { replies: (ids.length > 0 ? ids : [null]).map((id) => reply(id, INVALID_REQUEST, reason)) };
  }
  if (!isObject(value))
    return { replies: [reply(null, INVALID_REQUEST, "Invalid request: a message is a JSON object")] };
  if (!("method" in value)) {
    if ("result" in value || "error" in value) return passOrDrop(value);
    const needs =
      'Invalid request: a message needs "method" (a request or a notification) or "result"/"error" (a response)';
    return { replies: [reply(echo(value.id), INVALID_REQUEST, needs)] };
  }
  if (!("id" in value) && typeof value.method === "string") return passOrDrop(value);
  const problem = requestProblem(value);
  if (problem) return { replies: [reply(echo(value.id), problem.code, problem.message)] };
  return { message: value as JSONRPCMessage, replies: [] };
}

/** What is wrong with a request (or a message with a bad method and no id), or null. */
function requestProblem(value: Record<string, unknown>): { code: number; message: string } | null {
  const invalid = (message: string) => ({ code: INVALID_REQUEST, message: `Invalid request: ${message}` });
  const { id, method, params } = value;
  if ("id" in value && !(typeof id === "string" || Number.isSafeInteger(id)))
    return invalid('"id" must be a string or an integer');
  if (value.jsonrpc !== "2.0") return invalid('"jsonrpc" must be "2.0"');
  if (typeof method !== "string") return invalid('"method" must be a string');
  if (Array.isArray(params))
    return {
      code: INVALID_PARAMS,
      message: 'Invalid params: "params" must be an object (named), not a list',
    };
  if (params !== undefined && !isObject(params)) return invalid('"params" must be an object');
  const extra = Object.keys(value).find((key) => !MEMBERS.has(key));
  if (extra !== undefined) return invalid(`unknown member ${JSON.stringify(clip(extra, 40))}`);
  // umbel declares no task capability; the SDK would answer -32603 "does not support task creation".
  if (isObject(params) && "task" in params)
    return {
      code: INVALID_PARAMS,
      message: 'Invalid params: this server does not run tasks (remove "params.task")',
    };
  const schema = requestSchemas().get(method);
  const parsed = schema?.safeParse({ method, params });
  if (parsed && !parsed.success)
    return {
      code: INVALID_PARAMS,
      message: `Invalid params for ${clip(method, 40)}: ${describeIssues(parsed.error)}`,
    };
  const whole = JSONRPCMessageSchema.safeParse(value);
  return whole.success ? null : invalid(describeIssues(whole.error));
}

/** A notification or a response: to the SDK when well-formed, else dropped (nothing to answer). */
function passOrDrop(value: Record<string, unknown>): Screened {
  return JSONRPCMessageSchema.safeParse(value).success
    ? { message: value as JSONRPCMessage, replies: [] }
    : { replies: [] };
}

/** Not JSON: id null, unless the line is several whole JSON values (each id is then answered). */
function parseFailure(text: string, error: unknown): GuardReply[] {
  const values = splitJsonValues(text);
  if (values && values.length > 1) {
    const reason = `Parse error: ${values.length} JSON values on one line; ${ONE_PER_LINE}`;
    const ids = values.flatMap((v) => (isObject(v) && "id" in v ? [echo(v.id)] : []));
    return (ids.length > 0 ? ids : [null]).map((id) => reply(id, PARSE_ERROR, reason));
  }
  const why = (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "";
  return [reply(null, PARSE_ERROR, `Parse error: not JSON (${clip(why, 120)})`)];
}

let schemas: Map<string, z.ZodType> | undefined;

/** Each client request's own schema, by method (built on first use: nothing runs at import). */
function requestSchemas(): Map<string, z.ZodType> {
  schemas ??= new Map(ClientRequestSchema.options.map((s) => [s.shape.method.value, s as z.ZodType]));
  return schemas;
}

/** `params.name: expected string, received undefined (and 2 more)`: one line. */
function describeIssues(error: z.ZodError): string {
  const [first, ...rest] = error.issues;
  if (!first) return "invalid";
  const path = first.path.map(String).join(".");
  const what = first.message.replace(/^Invalid input: /, "").split("\n")[0] ?? "";
  const more = rest.length > 0 ? ` (and ${rest.length} more)` : "";
  return clip(`${path ? `${path}: ` : ""}${what}`, 160) + more;
}

function reply(id: string | number | null, code: number, message: string): GuardReply {
  return { jsonrpc: "2.0", id, error: { code, message } };
}

/** The id to answer with: the line's own when JSON-RPC allows echoing it, else null. */
function echo(id: unknown): string | number | null {
  return typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? id : null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
