// Echo lines that let a test prove a prompt or a tool result arrived intact.
import { createHash } from "node:crypto";

/**
 * `sha`: first 12 hex digits of sha256 over the UTF-8 text. `len` and `head` count code points
 * (what Python's `len` counts), so a head never ends in half a surrogate pair. The head spells
 * CR, LF, TAB and backslash as `\r`, `\n`, `\t`, `\\` so the echo stays on one line in a pane.
 */
export function digestOf(body: string): { len: number; sha: string; head: string } {
  const sha = createHash("sha256").update(body, "utf8").digest("hex").slice(0, 12);
  const points = Array.from(body);
  return { len: points.length, sha, head: escapeControls(points.slice(0, 40).join("")) };
}

/** `STUB-REPLY len=<n> sha=<12 hex> head=<first 40 chars>`: the default answer to a human prompt. */
export function renderPromptEcho(prompt: string, label = "STUB-REPLY"): string {
  const { len, sha, head } = digestOf(prompt);
  return `${label} len=${len} sha=${sha} head=${head}`;
}

/** `STUB-TOOL-RESULT is_error=<bool> len=<n> sha=<12 hex> head=<first 40 chars>`. */
export function renderToolResultEcho(result: string, isError: boolean): string {
  const { len, sha, head } = digestOf(result);
  return `STUB-TOOL-RESULT is_error=${isError} len=${len} sha=${sha} head=${head}`;
}

/**
 * The default answer to a turn Claude Code started on its own: `STUB-NOTICE task-notification
 * status=<status>`, `STUB-NOTICE agent-message`, or `STUB-NOTICE other`.
 */
export function renderNoticeEcho(injected: string): string {
  if (injected.includes("<task-notification>")) {
    const status = /<status>([^<]*)<\/status>/.exec(injected)?.[1] ?? "unknown";
    return `STUB-NOTICE task-notification status=${status}`;
  }
  return injected.includes("<agent-message ") ? "STUB-NOTICE agent-message" : "STUB-NOTICE other";
}

function escapeControls(head: string): string {
  return head
    .replaceAll("\\", "\\\\")
    .replaceAll("\n", "\\n")
    .replaceAll("\r", "\\r")
    .replaceAll("\t", "\\t");
}
