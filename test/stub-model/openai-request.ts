// Reads an OpenAI Responses API request as Codex 0.171.0 sends it: which kind of request it is, and
// what the human typed (the context messages Codex injects left out).
import { isRecord } from "./anthropic-request.ts";
import type { MainTurn, ToolResultSeen } from "./types.ts";

export interface ResponsesBody {
  model: string;
  stream: boolean;
  input: InputItem[];
  toolNames: string[];
  /** The JSON schema of a structured-output request (`text.format`), if any. */
  schema: Record<string, unknown> | undefined;
  /** The name of that schema (`codex_output_schema` for the title request). */
  schemaName: string;
}

/** One `input` item; only the fields the stub reads. */
export interface InputItem {
  type: string;
  role: string;
  /** The joined `input_text` / `output_text` parts of a message. */
  text: string;
  /** Each text part of a message on its own (a typed prompt is always a part of its own). */
  parts: string[];
  callId: string;
  output: string;
}

export type ClassifiedResponses =
  | { kind: "title"; prompt: string }
  | { kind: "classifier"; prompt: string }
  | { kind: "other" }
  | { kind: "main"; turn: MainTurn };

/**
 * Codex wraps everything it adds to the conversation in tags of its own: the environment context,
 * project instructions (AGENTS.md), the interrupted-turn marker and the permission notes. A typed
 * prompt is a user message of its own, so these are recognised by what they start with.
 */
const INJECTED = [
  /^<environment_context>/,
  /^<turn_aborted>/,
  /^<user_instructions>/,
  /^# AGENTS\.md instructions for /,
  /^<permissions instructions>/,
  /^<user_shell_command>/,
  /^<skill>/,
];
/** The title request quotes the prompt after this line (§1 of the codex notes). */
const TITLE_PROMPT = /User prompt:\n([\s\S]*)$/;

export function readResponsesBody(body: unknown): ResponsesBody {
  const raw = isRecord(body) ? body : {};
  const format = isRecord(raw.text) ? raw.text.format : undefined;
  const schema =
    isRecord(format) && format.type === "json_schema" && isRecord(format.schema) ? format.schema : undefined;
  return {
    model: typeof raw.model === "string" ? raw.model : "stub-model",
    stream: raw.stream === true,
    input: Array.isArray(raw.input) ? raw.input.filter(isRecord).map(toItem) : [],
    toolNames: Array.isArray(raw.tools) ? raw.tools.filter(isRecord).flatMap(toolNamesOf) : [],
    schema,
    schemaName: isRecord(format) && typeof format.name === "string" ? format.name : "",
  };
}

export function classifyResponses(body: ResponsesBody): ClassifiedResponses {
  if (body.schema !== undefined) {
    const properties = isRecord(body.schema.properties) ? body.schema.properties : {};
    const lastUser = body.input.findLast((item) => item.type === "message" && item.role === "user");
    const quoted = TITLE_PROMPT.exec(lastUser?.text ?? "")?.[1];
    if ("title" in properties) return { kind: "title", prompt: quoted ?? lastUser?.text ?? "" };
    // The guardian of `--approve-for-me` answers with `outcome` allow / deny.
    if ("outcome" in properties) return { kind: "classifier", prompt: lastUser?.text ?? "" };
    return { kind: "other" };
  }
  return { kind: "main", turn: readResponsesTurn(body.input) };
}

/**
 * The turn a main request answers. A request whose input ends with tool outputs (after the last
 * user message) brings back tool results; otherwise the prompt is the last human user message of
 * the trailing run of user messages (Codex sends its environment context as a user message of its
 * own just before the first prompt, and `<turn_aborted>` before the prompt after an interrupt).
 */
export function readResponsesTurn(input: readonly InputItem[]): MainTurn {
  const lastUser = input.findLastIndex((item) => item.type === "message" && item.role === "user");
  const after = input.slice(lastUser + 1);
  const toolResults: ToolResultSeen[] = after
    .filter((item) => item.type === "function_call_output" || item.type === "custom_tool_call_output")
    .map((item) => ({
      toolUseId: item.callId,
      isError: isFailedOutput(item.output),
      text: commandOutput(item.output),
    }));
  let runStart = lastUser;
  while (runStart > 0 && isContextMessage(input[runStart - 1])) runStart--;
  const run = input.slice(Math.max(0, runStart), lastUser + 1).filter((item) => item.role === "user");
  const prompt = run.map((item) => splitUserParts(item.parts).human).findLast((human) => human !== "") ?? "";
  const injected = splitUserParts(run.flatMap((item) => item.parts)).injected;
  const trigger = toolResults.length > 0 ? "tool_result" : prompt !== "" ? "prompt" : "notice";
  return {
    trigger,
    prompt: trigger === "prompt" ? prompt : "",
    injected,
    toolResults,
    messageCount: input.length,
  };
}

function splitUserParts(parts: readonly string[]): { human: string; injected: string } {
  const human = parts.filter((part) => !isInjectedText(part));
  const injected = parts.filter((part) => isInjectedText(part));
  return { human: human.join(""), injected: injected.join("") };
}

function isInjectedText(text: string): boolean {
  return INJECTED.some((pattern) => pattern.test(text));
}

function isContextMessage(item: InputItem | undefined): boolean {
  return item !== undefined && item.type === "message" && (item.role === "user" || item.role === "developer");
}

/** exec_command output says `Process exited with code N`; anything but 0 is a failed tool. */
function isFailedOutput(output: string): boolean {
  const code = /Process exited with code (-?\d+)/.exec(output)?.[1];
  return code !== undefined && code !== "0";
}

/**
 * The command's own output: exec_command results start with a header whose `Chunk ID` and
 * `Wall time` change every run (`Chunk ID: …\nWall time: …\nProcess exited with code 0\n…Output:\n`).
 */
function commandOutput(output: string): string {
  const at = output.indexOf("\nOutput:\n");
  return /^Chunk ID: /.test(output) && at >= 0 ? output.slice(at + "\nOutput:\n".length) : output;
}

/**
 * A tool's name, or for a namespace (codex 0.171.0 offers each MCP server's tools as
 * `{type: "namespace", name: "mcp__<server>", tools: [...]}`) each of its functions as `ns.name`
 * (Responses tool names never hold a dot).
 */
function toolNamesOf(tool: Record<string, unknown>): string[] {
  if (tool.type === "namespace" && Array.isArray(tool.tools))
    return tool.tools.filter(isRecord).map((fn) => `${String(tool.name ?? "")}.${String(fn.name ?? "")}`);
  return [String(tool.name ?? tool.type ?? "")];
}

function toItem(raw: Record<string, unknown>): InputItem {
  const parts = Array.isArray(raw.content)
    ? raw.content
        .filter(isRecord)
        .filter((part) => typeof part.text === "string")
        .map((part) => String(part.text))
    : typeof raw.content === "string"
      ? [raw.content]
      : [];
  const output = raw.output;
  return {
    type: String(raw.type ?? (raw.role !== undefined ? "message" : "")),
    role: String(raw.role ?? ""),
    text: parts.join(""),
    parts,
    callId: String(raw.call_id ?? ""),
    output: typeof output === "string" ? output : output === undefined ? "" : JSON.stringify(output),
  };
}
