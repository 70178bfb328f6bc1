// The dialect-neutral vocabulary of the stub model server: what a reply is, what a request record is.

/** One content block of a scripted assistant message. */
export type StubBlock =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string }
  | {
      type: "tool_use";
      name: string;
      input: Record<string, unknown>;
      id?: string;
      /** `name` is part of the tool's name: call the first tool the request offers whose name contains it. */
      match?: true;
    };

/** Pacing of a streamed message: `chunks` deltas per text block, `chunkDelayMs` between them. */
export interface StubPacing {
  delayMs?: number;
  chunks?: number;
  chunkDelayMs?: number;
}

/**
 * What the stub answers to one model request.
 * A `message` with tool_use blocks may carry `then`: the reply to the request that brings back
 * the tool_result for one of its tool calls. A fault with `times: n` answers the next n main
 * requests (Claude Code retries, and follows a failed stream with one non-streaming request).
 */
export type StubReply =
  | ({ kind: "message"; blocks: StubBlock[]; then?: StubReply } & StubPacing)
  | { kind: "error"; status: number; times?: number; message?: string; headers?: Record<string, string> }
  | { kind: "malformed"; times?: number }
  /** A subscription usage limit, in each dialect's terms (limits.ts); the window resets in `seconds`. */
  | { kind: "limit"; seconds: number; window?: string; times?: number }
  | { kind: "cut"; times?: number }
  | { kind: "hang" };

export type DialectName = "anthropic" | "openai" | "gemini" | "openai-chat";

export type RequestKind =
  | "main"
  | "title"
  | "classifier"
  | "subagent"
  | "count_tokens"
  | "models"
  | "probe"
  | "other";

/**
 * What a main request answers: a human prompt, the results of earlier tool calls, or a notice
 * Claude Code sent on its own (a background task finished, a subagent handed back its report).
 */
export interface MainTurn {
  trigger: "prompt" | "tool_result" | "notice";
  /** The human text of the last user message, injected blocks stripped; "" when there is none. */
  prompt: string;
  /** The text of the blocks stripped from the last user message (system reminders, notices). */
  injected: string;
  toolResults: ToolResultSeen[];
  /** Number of messages in the request; with `prompt` it tells a retry from a new turn. */
  messageCount: number;
}

export interface ToolResultSeen {
  toolUseId: string;
  isError: boolean;
  text: string;
}

export interface StubRequest {
  seq: number;
  /** Milliseconds since the stub started. */
  at: number;
  method: string;
  path: string;
  query: string;
  headers: Record<string, string>;
  /** Parsed JSON body, or the raw text when it is not JSON, or undefined when empty. */
  body: unknown;
  kind: RequestKind;
  stream: boolean;
  model?: string;
  /**
   * What was asked: the typed prompt of a main request (prompt trigger), a subagent's task, or the
   * `<session>…</session>` text a title request names.
   */
  prompt?: string;
  main?: MainTurn;
  /** A short description of what the stub answered, e.g. `message text`, `error 500`, `hang`. */
  answered?: string;
}

export interface StubModelOptions {
  dialect: DialectName;
  /** Replaces the echo reply for main requests that nothing else (queue, directive) answers. */
  defaultReply?: StubReply;
  /** The auto-mode classifier's verdict when the conversation has no `stub:deny`. */
  classifier?: "allow" | "deny";
  hostname?: string;
}
