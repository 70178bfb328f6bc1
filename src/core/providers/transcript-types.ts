/*
 * What a provider reads from a transcript: the final answer (read, wait) and, for `umbel -p`, the
 * turn as claude's stream-json messages and result object.
 */

/**
 * One message of claude's `--output-format stream-json` (an assistant or a user/tool-result line, a
 * limit's rate_limit_event, a refused call's system/permission_denied).
 */
export type StreamMessage = {
  readonly type: "assistant" | "user" | "rate_limit_event" | "system";
} & Readonly<Record<string, unknown>>;

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
  /**
   * The API error that ended the turn (its text is the answer); `error` is claude's own name for it
   * where it gives one (`usage_limit_reached`), `rateLimitInfo` its `rate_limit_info`.
   */
  readonly apiError: {
    readonly status: number | null;
    readonly type: string | null;
    readonly error?: string | null;
    readonly rateLimitInfo?: Readonly<Record<string, unknown>> | null;
  } | null;
  readonly permissionDenials: readonly Readonly<Record<string, unknown>>[];
  /** The provider wrote its end-of-turn marker (claude: system/turn_duration). */
  readonly complete: boolean;
  /**
   * API messages seen whose request's own line is not in yet (claude: an `api-request` line can land
   * after its answer), so `durationApiMs` is not final; absent: the provider times nothing that way.
   */
  readonly timingsPending?: number;
  /** Tool calls of the turn whose results have not landed yet (--max-turns halts once this is 0). */
  readonly toolsPending: number;
  readonly sessionId: string | null;
};

/**
 * One human turn of a whole recorded conversation (ACP's `session/load` replays them): the prompt as
 * the CLI recorded it, and the turn's messages as its tracker renders them.
 */
export type ConversationTurn = {
  readonly prompt: string;
  readonly messages: readonly StreamMessage[];
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

/**
 * Where a provider's session record is and how to read it: a transcript file (claude, codex,
 * gemini), or a read-only SQLite query (opencode keeps its sessions in one database). The engine
 * reads either as text and hands it to the provider's parsers: a query's rows are its lines, each
 * row's single column one line.
 */
export type RecordSource =
  | { readonly kind: "file"; readonly path: string }
  | {
      readonly kind: "sqlite";
      readonly path: string;
      readonly query: string;
      readonly params: readonly (string | number)[];
    };
