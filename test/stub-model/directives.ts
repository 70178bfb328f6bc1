// Keyword directives a test can put in a prompt to choose the reply without scripting the stub,
// e.g. when the prompt is typed into a TUI through umbel. See README.md for the list.
import { renderPromptEcho } from "./digest.ts";
import { limit } from "./limits.ts";
import {
  agent,
  bash,
  cutStream,
  hang,
  malformed,
  matchingToolUse,
  slowText,
  text,
  thinking,
  write,
} from "./replies.ts";
import type { StubReply } from "./types.ts";

/** A directive found in a prompt; `times` is set for `stub:error` (undefined = every time). */
export interface Directive {
  name: string;
  reply: StubReply;
  times?: number;
}

const NAMES = [
  "error",
  "limit",
  "bash",
  "write",
  "slow",
  "hang",
  "thinking",
  "task",
  "malformed",
  "cut",
  "text",
  "tool",
];
const PATTERN = new RegExp(`(?:^|\\s)stub:(${NAMES.join("|")})(?=\\s|$)([^\\n]*)`);

/** The first reply directive in `prompt`, or null. `stub:deny` is the classifier's, not listed here. */
export function parseDirective(prompt: string): Directive | null {
  const match = PATTERN.exec(prompt);
  if (!match) return null;
  const name = match[1] ?? "";
  // Arguments run to the end of the line or to the next directive (`stub:bash ls stub:deny`).
  const rest = (match[2] ?? "").split(/\sstub:[a-z]/)[0]?.trim() ?? "";
  const [first, second] = rest.split(/\s+/);
  const echo = renderPromptEcho(prompt);
  switch (name) {
    case "error": {
      const status = toInt(first, 500);
      const times = second === undefined ? undefined : toInt(second, 1);
      const reply: StubReply = { kind: "error", status };
      return times === undefined ? { name, reply } : { name, reply, times };
    }
    case "limit": {
      // stub:limit <seconds> [window] [times]: a window name, or a number alone as the times.
      const words = rest.split(/\s+/).filter((w) => w !== "");
      const seconds = toInt(words[0], 3600);
      const named = words[1] !== undefined && !/^\d+$/.test(words[1]) ? words[1] : undefined;
      const count = words[named === undefined ? 1 : 2];
      const times = count === undefined ? undefined : toInt(count, 1);
      return { name, reply: limit(seconds, named, times ?? 1), ...(times === undefined ? {} : { times }) };
    }
    case "bash":
      return { name, reply: bash(rest || "echo stub") };
    case "write": {
      const [path = "stub.txt", ...content] = rest.split(" ");
      return { name, reply: write(path, content.join(" ")) };
    }
    case "slow": {
      // Pad the echo so that even 400 chunks have something to carry.
      const chunks = toInt(first, 20);
      return { name, reply: slowText(`${echo}\n${".".repeat(chunks)}`, chunks, toInt(second, 50)) };
    }
    case "thinking":
      return { name, reply: thinking(`Stub thinking about: ${echo}`, echo) };
    case "task":
      return { name, reply: agent(rest || "stub subagent") };
    case "text":
      return { name, reply: text(rest) };
    case "tool":
      return { name, reply: toolChain(prompt) };
    case "hang":
      return { name, reply: hang() };
    case "malformed":
      return { name, reply: malformed() };
    case "cut":
      return { name, reply: cutStream() };
    default:
      return null;
  }
}

/**
 * `stub:tool <name> <json>`: a call of the first offered tool whose name contains <name> (each CLI
 * prefixes MCP tools its own way), with <json> as its arguments. Several in one prompt are made one
 * after the other, each once the previous call's result is back; the last result gets the echo.
 * Arguments that are not a JSON object are sent as `{"value": <text>}`.
 */
function toolChain(prompt: string): StubReply {
  const calls = [...prompt.matchAll(/(?:^|\s)stub:tool[ \t]+(\S+)([^\n]*?)(?=\sstub:[a-z]|\n|$)/g)].map(
    (m) => ({ name: m[1] ?? "", input: parseArguments((m[2] ?? "").trim()) }),
  );
  let reply: StubReply | undefined;
  for (const call of calls.reverse()) reply = matchingToolUse(call.name, call.input, reply);
  return reply ?? text("stub:tool needs a tool name");
}

function parseArguments(raw: string): Record<string, unknown> {
  if (raw === "") return {};
  try {
    const value: unknown = JSON.parse(raw);
    if (typeof value === "object" && value !== null && !Array.isArray(value))
      return value as Record<string, unknown>;
  } catch {}
  return { value: raw };
}

/** True when the conversation asks the auto-mode classifier to block (`stub:deny`). */
export function wantsDeny(serializedRequest: string): boolean {
  return serializedRequest.includes("stub:deny");
}

function toInt(token: string | undefined, fallback: number): number {
  const value = Number.parseInt(token ?? "", 10);
  return Number.isFinite(value) ? value : fallback;
}
