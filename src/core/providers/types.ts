import type { PermissionMode, ProviderId } from "../schemas.ts";

/**
 * The contract every provider file fulfils: data and pure functions only. The engine (operations)
 * does the I/O and asks the provider what the screen means, which keys to press, and how to read
 * the events and the transcript.
 */

/** One line of the worker's events log, as the hook script appended it. */
export type HookEvent = {
  /** 0-based line number in the events log: the race-free ordering of everything a worker reports. */
  readonly index: number;
  readonly name: string;
  readonly payload: Readonly<Record<string, unknown>>;
};

/** What a hook event means for the turn protocol (provider-neutral). */
export type TurnSignal =
  | { kind: "session-start"; sessionId: string | null; transcriptPath: string | null }
  | { kind: "submitted"; promptId: string | null; prompt: string | null; human: boolean }
  | { kind: "stop"; promptId: string | null; message: string | null; backgroundTasks: string[] }
  | { kind: "failure"; promptId: string | null; error: string; message: string | null }
  | { kind: "input"; text: string; detail: string }
  | { kind: "subagent-start"; id: string }
  | { kind: "subagent-stop"; id: string }
  | { kind: "progress" }
  | { kind: "session-end"; reason: string }
  | { kind: "ignore" };

export type LaunchInput = {
  readonly bin: string;
  readonly sessionId: string;
  /** The shell command a hook runs; it reads the payload on stdin. */
  readonly hookCommand: string;
  readonly model?: string | undefined;
  readonly permissionMode?: PermissionMode | undefined;
  readonly allowedTools?: readonly string[] | undefined;
  readonly unattended?: boolean | undefined;
  readonly resumeSessionId?: string | undefined;
  /** Continue the most recent conversation in the cwd (claude: --continue) instead of a new one. */
  readonly continueSession?: boolean | undefined;
  readonly disallowedTools?: readonly string[] | undefined;
  readonly systemPrompt?: string | undefined;
  readonly appendSystemPrompt?: string | undefined;
  readonly addDirs?: readonly string[] | undefined;
  /** The caller's settings (a JSON object's text), merged into the provider's own hook settings. */
  readonly settings?: string | undefined;
  /** MCP server configs: JSON text or file paths, passed through. */
  readonly mcpConfig?: readonly string[] | undefined;
  readonly isRoot: boolean;
};

export type LaunchPlan = {
  readonly argv: readonly string[];
  /** Fixed environment the provider needs (lowest precedence after the allowlist). */
  readonly env: Readonly<Record<string, string>>;
};

/** How the provider reads a screen. `keys` are tmux key names, sent one call at a time. */
export type ScreenState =
  | { kind: "dialog"; dialog: string; keys: readonly string[]; fatal?: string }
  | { kind: "sign-in"; text: string }
  | { kind: "input"; text: string }
  | { kind: "error"; text: string }
  | { kind: "busy" }
  | { kind: "ready" }
  | { kind: "exited"; text: string }
  | { kind: "unknown" };

export type Provider = {
  readonly id: ProviderId;
  readonly displayName: string;
  /** Environment variable that overrides the binary (tests, CLIs not on PATH). */
  readonly binEnv: string;
  readonly defaultBin: string;
  /** Variables this provider needs from umbel's environment, named one by one. */
  readonly envNames: readonly string[];
  /** Variables that must never reach a worker implicitly (they may still be passed with --env). */
  readonly explicitOnlyEnv: readonly string[];
  /** Hook events to register; the engine builds one command per event. */
  readonly hookEvents: readonly string[];
  planLaunch(input: LaunchInput): LaunchPlan;
  classifyScreen(screen: string): ScreenState;
  /** The screen without what moves while nothing happens (spinner glyphs, elapsed-time counters). */
  stillScreen(screen: string): string;
  /** The text to paste for a prompt (normalised; neutralises command prefixes). */
  preparePrompt(prompt: string): string;
  /** The hook event that proves a prompt was taken. */
  readonly submitEvent: string;
  interpretEvent(event: HookEvent): TurnSignal;
  /** The final assistant text of the turn started by promptId (or the last human turn). */
  parseAnswer(transcript: string, promptId: string | null): TranscriptAnswer;
  /**
   * Follows one turn's transcript lines as they are appended and renders them as claude's
   * stream-json messages (`umbel -p`). Optional: a provider without it gets text and json output only.
   */
  trackTurn?(promptId: string | null): TurnTracker;
};

/** One message of claude's `--output-format stream-json` (an assistant or a user/tool-result line). */
export type StreamMessage = { readonly type: "assistant" | "user" } & Readonly<Record<string, unknown>>;

/** What a turn's transcript says, in the terms of claude -p's result object. */
export type TurnSummary = {
  /** Distinct assistant API messages (claude -p counts these as num_turns). */
  readonly assistantMessages: number;
  /** claude's usage object, summed over the turn's API messages. */
  readonly usage: Readonly<Record<string, unknown>>;
  /** Per model: token counts summed (claude's modelUsage keys; cost and limits unknown → null). */
  readonly modelUsage: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly stopReason: string | null;
  /** Sum over the turn's API requests of (last line of its answer − the request's own line). */
  readonly durationApiMs: number | null;
  /** The prompt line → the first assistant line / the first API request line. */
  readonly ttftMs: number | null;
  readonly timeToRequestMs: number | null;
  /** The API error that ended the turn (its text is the answer). */
  readonly apiError: { readonly status: number | null; readonly type: string | null } | null;
  readonly permissionDenials: readonly Readonly<Record<string, unknown>>[];
  /** The provider wrote its end-of-turn marker (claude: system/turn_duration). */
  readonly complete: boolean;
  readonly sessionId: string | null;
};

/** Fed the transcript's new lines in order (pure, stateful); returns the stream messages they complete. */
export type TurnTracker = {
  push(line: string): StreamMessage[];
  summary(): TurnSummary;
};

export type TranscriptAnswer = {
  readonly text: string | null;
  /** The provider wrote its end-of-turn marker for this turn (safe to stop re-reading). */
  readonly complete: boolean;
  readonly sessionId: string | null;
  readonly assistantMessages: number;
};
