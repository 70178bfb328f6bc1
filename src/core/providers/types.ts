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
  /** The turn ended without an answer (codex: Interrupt / turn_aborted; gemini: "Request cancelled."). */
  | { kind: "interrupted"; promptId: string | null; detail?: string }
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
  /** MCP server configs: JSON text or file paths, passed through (claude reads them itself). */
  readonly mcpConfig?: readonly string[] | undefined;
  /** The same configs read and merged: claude's `mcpServers` map (name → server), for other CLIs. */
  readonly mcpServers?: Readonly<Record<string, unknown>> | undefined;
  readonly isRoot: boolean;
  /** The worker's name (codex: its config profile `umbel-<worker>`). */
  readonly worker?: string | undefined;
  /** The provider-owned home the engine laid out from planHome (absolute). */
  readonly providerHome?: string | undefined;
};

/** What the engine knows before it lays out a provider's home (all paths absolute, symlinks resolved). */
export type HomeContext = {
  /** $UMBEL_HOME. */
  readonly stateRoot: string;
  /** sessions/<name>: removed with the worker's tombstone. */
  readonly sessionDir: string;
  readonly worker: string;
  readonly cwd: string;
  readonly hookCommand: string;
  readonly eventsLog: string;
  /** umbel's own environment (to find the user's config; never passed on). */
  readonly hostEnv: Readonly<Record<string, string | undefined>>;
  /** The names (not values) of the worker's environment. */
  readonly workerEnvNames: readonly string[];
  /** The launch flags that live in a provider's home (a config file) rather than on its argv. */
  readonly launch: HomeLaunch;
};

export type HomeLaunch = {
  readonly systemPrompt?: string | undefined;
  readonly appendSystemPrompt?: string | undefined;
  readonly disallowedTools?: readonly string[] | undefined;
  /** claude's `mcpServers` map, merged from every --mcp-config. */
  readonly mcpServers?: Readonly<Record<string, unknown>> | undefined;
};

/** An entry of a provider home: dirs 0700, files written atomically, links made only to existing targets. */
export type HomeEntry =
  | { readonly kind: "dir"; readonly path: string; readonly mode: number }
  | { readonly kind: "file"; readonly path: string; readonly content: string; readonly mode: number }
  | { readonly kind: "link"; readonly path: string; readonly target: string };

export type HomePlan = {
  /** Given to planLaunch as providerHome. */
  readonly home: string;
  readonly entries: readonly HomeEntry[];
  /** What kill removes (never following links). */
  readonly removeOnKill: readonly string[];
  readonly warnings: readonly string[];
};

/** Paste → Enter pause, how long to wait for the submit hook, and how many Enters at most. */
export type Delivery = {
  readonly enterDelayMs: number;
  readonly confirmWindowMs: number;
  readonly maxEnters: number;
};

/** The launch options a provider may not support, checked before any I/O. */
export type LaunchOptions = {
  readonly allowedTools?: readonly string[] | undefined;
  readonly permissionMode?: PermissionMode | undefined;
  readonly unattended?: boolean | undefined;
  /** The optional launch flags given, e.g. `--system-prompt`. */
  readonly launchFlags?: readonly LaunchFlag[] | undefined;
  /** claude's `mcpServers` map from --mcp-config (a provider may refuse servers it cannot run). */
  readonly mcpServers?: Readonly<Record<string, unknown>> | undefined;
};

/** Every optional launch flag claude's TUI takes; other providers list the ones they honour. */
export type LaunchFlag =
  | "--disallowed-tools"
  | "--system-prompt"
  | "--append-system-prompt"
  | "--add-dir"
  | "--settings"
  | "--mcp-config"
  | "--continue";

/** The usage error for launch flags given to a provider that does not honour them, or null. */
export function refuseLaunchFlags(
  provider: string,
  options: LaunchOptions,
  supported: readonly LaunchFlag[],
): string | null {
  const given = (options.launchFlags ?? []).filter(
    (flag) => !(supported as readonly string[]).includes(flag),
  );
  if (given.length === 0) return null;
  return `${given.join(", ")} ${given.length === 1 ? "is" : "are"} not supported with --provider ${provider}`;
}

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
  /** `keys` (when given) dismiss it so the provider ends the turn (gemini: Stop on "Keep trying / Stop"). */
  | { kind: "error"; text: string; keys?: readonly string[] }
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
  /**
   * The files of the user's own config the engine reads for planHome (text, or null when missing).
   * With planHome: the provider runs in a umbel-owned home (codex CODEX_HOME, gemini GEMINI_CLI_HOME).
   */
  homeReads?(context: HomeContext): readonly string[];
  planHome?(context: HomeContext, files: Readonly<Record<string, string | null>>): HomePlan;
  /** false: the SessionStart hook fires at the first prompt (codex), so ready is the screen alone. */
  readonly sessionStartAtLaunch?: boolean;
  /** false: text streams with no busy marker (codex), so an idle-looking screen proves nothing. */
  readonly screenShowsStreaming?: boolean;
  readonly delivery?: Delivery;
  /** Keys that empty the composer (default C-u ×3). */
  clearInputKeys?(screen: string): readonly string[];
  /** A usage error (naming the provider) for launch options it cannot honour, or null. */
  checkLaunchOptions?(options: LaunchOptions): string | null;
  /**
   * How the turn ended according to the transcript (turns that end without a hook: a failed or
   * cancelled turn), or null while it says nothing. promptId is the turn's submit promptId.
   */
  transcriptTurnEnd?(transcript: string, promptId: string | null): TurnSignal | null;
  /**
   * A turn that only retries (gemini retries 5xx/429/unreachable for ever, firing only BeforeModel
   * markers): stalled once the retries outlast stallMs with no progress. interruptKeys then end it.
   */
  assessStall?(input: StallInput): Stall;
  readonly interruptKeys?: readonly string[];
  /**
   * How `umbel -p --max-turns` stops a turn after the Nth API message's tools: "hook" (the CLI
   * stops itself when a hook answers `{"continue":false}` after a tool: claude PostToolUse, gemini
   * AfterTool; armed at the Nth message) or "interrupt" (the default: press interruptKeys once the
   * Nth message's tools are done; codex takes `{"continue":false}` as the tool's output and goes on).
   */
  readonly maxTurnsHalt?: "hook" | "interrupt";
  /**
   * While --max-turns holds a turn, what each hook event prints (event name → its JSON output):
   * hooks/hook.sh prints events/halt-<Event>.json. Events a provider does not name print nothing.
   */
  haltHooks?(reason: string): Readonly<Record<string, unknown>>;
  /** Hook events that are bare markers, not progress (gemini: BeforeModel, one per model attempt). */
  readonly markerEvents?: readonly string[];
};

type StallInput = {
  /** The turn's events (after the baseline), in log order. */
  readonly events: readonly HookEvent[];
  /** When umbel last saw progress: the turn's start, a new non-marker event, or a transcript change. */
  readonly lastProgressAt: number;
  readonly now: number;
  readonly busy: boolean;
  readonly stallMs?: number;
};

type Stall =
  | { readonly stalled: false; readonly attempts: number }
  | { readonly stalled: true; readonly attempts: number; readonly sinceMs: number; readonly error: string };

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
  /** Tool calls of the turn whose results have not landed yet (--max-turns halts once this is 0). */
  readonly toolsPending: number;
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
