import type { AnswerMeanings, PromptOption } from "../fleet/answer.ts";
import type { BillingEnv } from "../limits/billing.ts";
import type { ProviderLimits } from "../limits/limits.ts";
import type { Telemetry, TelemetryRecords } from "../limits/telemetry.ts";
import type { ProviderId } from "../schemas.ts";
import type { LaidOutHome, ProviderHome } from "./home-types.ts";
import type { HookEvent } from "./hook-event.ts";
import type { LaunchInput, LaunchOptions, LaunchPlan } from "./launch-types.ts";
import type { ConversationTurn, RecordSource, TranscriptAnswer, TurnTracker } from "./transcript-types.ts";

/**
 * The contract every provider file fulfils: data and pure functions only. The engine (operations)
 * does the I/O and asks the provider what the screen means, which keys to press, and how to read
 * the events and the transcript.
 */

export type { HookEvent };

/**
 * How a provider's hook payloads name their event, session and transcript (null: this payload does
 * not say). claude, codex and gemini all write claude's `hook_event_name`, `session_id` and
 * `transcript_path`; a CLI whose events come from a plugin declares its own shape.
 */
export type HookWire = {
  eventName(payload: Readonly<Record<string, unknown>>): string | null;
  sessionId(payload: Readonly<Record<string, unknown>>): string | null;
  transcriptPath(payload: Readonly<Record<string, unknown>>): string | null;
  /** A tool call's tool and its input, for spawn --allow/--deny (core/fleet/policy/decide.ts): top-level fields only. */
  toolName?(payload: Readonly<Record<string, unknown>>): string | null;
  toolInput?(payload: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> | null;
};

/** What a hook event means for the turn protocol (provider-neutral). */
export type TurnSignal =
  | { kind: "session-start"; sessionId: string | null; transcriptPath: string | null }
  | { kind: "submitted"; promptId: string | null; prompt: string | null; human: boolean }
  | { kind: "stop"; promptId: string | null; message: string | null; backgroundTasks: string[] }
  | { kind: "failure"; promptId: string | null; error: string; message: string | null }
  /** The turn ended without an answer (codex: Interrupt / turn_aborted; gemini: "Request cancelled."). */
  | { kind: "interrupted"; promptId: string | null; detail?: string }
  /** `repeats`: it announces the prompt already pending, if one is (claude's permission_prompt Notification). */
  | { kind: "input"; text: string; detail: string; repeats?: boolean }
  | { kind: "subagent-start"; id: string }
  | { kind: "subagent-stop"; id: string }
  | { kind: "progress" }
  | { kind: "session-end"; reason: string }
  | { kind: "ignore" };

/** Paste → Enter pause, how long to wait for the submit hook, and how many Enters at most. */
export type Delivery = {
  readonly enterDelayMs: number;
  readonly confirmWindowMs: number;
  readonly maxEnters: number;
};

/** How the provider reads a screen. `keys` are tmux key names, sent one call at a time. */
export type ScreenState =
  /**
   * `keys` answer it from this very screen (moves, then Enter); `grantsTrust`: answering it trusts
   * a folder on the user's behalf (umbel refuses that for / and the home directory itself);
   * `lasting`: the CLI keeps that answer in the user's own configuration, past the worker's life
   * (`Provider.dialogRecord` says where). `answer` is the option umbel picks, as the screen words it,
   * and `folders` the folders a trust question names: both are what spawn reports.
   */
  | {
      kind: "dialog";
      dialog: string;
      keys: readonly string[];
      fatal?: string;
      /**
       * A fatal screen that may clear by itself: spawn presses `keys` once a second for `forMs`
       * before it fails with `fatal` (codex's thread lock, held by a worker killed a moment ago).
       */
      retry?: { readonly keys: readonly string[]; readonly forMs: number };
      grantsTrust?: true;
      lasting?: true;
      answer?: string;
      folders?: readonly string[];
    }
  | { kind: "sign-in"; text: string }
  | { kind: "input"; text: string }
  /** `keys` (when given) dismiss it so the provider ends the turn (gemini: Stop on "Keep trying / Stop"). */
  | { kind: "error"; text: string; keys?: readonly string[] }
  | { kind: "busy" }
  | { kind: "ready" }
  | { kind: "exited"; text: string }
  | { kind: "unknown" };

/**
 * What a CLI calls its tools, so a dialect can tell what a call did whichever CLI made it: a shell
 * command, a file write or edit, a web search, a patch, an MCP tool; and how its shell tool reports a
 * command's output and exit code.
 */
export type ToolVocabulary = {
  readonly command: readonly string[];
  readonly write: readonly string[];
  readonly edit: readonly string[];
  readonly web: readonly string[];
  /** A tool that takes a whole patch (codex apply_patch: `*** Add File: p` …). */
  readonly patch?: readonly string[];
  /** An MCP tool's name: the server and the tool as its two groups. */
  readonly mcpName?: RegExp;
  /** Tools that read a file (ACP's `read` kind of tool call). */
  readonly read?: readonly string[];
  /** Its read tool shows an image file to the model (an ACP prompt's images are attached as files). */
  readonly readsImages?: boolean;
  /** Tools that find or list files (ACP's `search`). */
  readonly search?: readonly string[];
  /** Tools that fetch a URL (ACP's `fetch`). */
  readonly fetch?: readonly string[];
  /** Tools that hand work to a subagent (ACP's `think`). */
  readonly delegate?: readonly string[];
  /** The CLI's todo list tool and the key of its list in the call's input (ACP's `plan`). */
  readonly todo?: { readonly name: string; readonly list: string };
  /** The output and exit code of a shell call, from the text the model saw; null: not this CLI's shape. */
  commandResult?(text: string, isError: boolean): { output: string; exitCode: number } | null;
};

/** What every provider declares; a provider is a PlainProvider or a HomedProvider. */
export type ProviderCommon = {
  readonly id: ProviderId;
  readonly displayName: string;
  /**
   * The release umbel is tested with and its npm package: `npm run setup:real` installs it for the
   * real tier and `umbel doctor` compares the installed one against it (core/doctor/tested-versions.ts).
   */
  readonly tested: { readonly version: string; readonly npm: string };
  /** The shape of the CLI's own session ids (`-p --resume` tells one from a umbel worker name). */
  readonly sessionIdPattern: RegExp;
  /** Environment variable that overrides the binary (tests, CLIs not on PATH). */
  readonly binEnv: string;
  readonly defaultBin: string;
  /** Variables this provider needs from umbel's environment, named one by one. */
  readonly envNames: readonly string[];
  /** Variables that must never reach a worker implicitly (they may still be passed with --env). */
  readonly explicitOnlyEnv: readonly string[];
  /**
   * When an explicit-only key passed with --env does not sign the CLI in by itself (codex 0.171.0
   * shows its login screen with OPENAI_API_KEY set): the command that stores the key `name` for it,
   * which spawn's sign-in refusal names instead of the flag. Absent: passing the key is enough.
   */
  storeApiKey?(name: string): string;
  /**
   * A variable that signs the CLI in by itself (a long-lived token: how servers and containers sign
   * in) and the command that makes one. A secret, so never inherited: spawn's sign-in refusal and
   * `doctor` name it and the way to pass it.
   */
  readonly signInToken?: { readonly env: string; readonly makeWith: string };
  /**
   * What an account's `home` (config.toml [accounts.NAME], core/accounts/launch.ts) becomes for this
   * CLI: variables of the worker (claude's CLAUDE_CONFIG_DIR) and overrides of umbel's environment
   * as the home planner reads it (codex's CODEX_HOME: where the user's auth is found). Measured per
   * CLI (docs/providers.md, "accounts: what isolates a sign-in").
   */
  accountHome(home: string): AccountHome;
  /**
   * The arguments that run the CLI's own interactive sign-in (`umbel accounts login`, on the user's
   * terminal, in an account's home); empty: the TUI itself, whose first start without a sign-in opens
   * its auth dialog. From the pinned binaries' `--help` (docs/accounts.md, "Signing in").
   */
  readonly signInArgs: readonly string[];
  /**
   * `--on-limit failover` (core/accounts/failover.ts): where the session record the hooks announced
   * (`transcript`) goes so that this CLI, started with another account's worker environment `env`,
   * resumes it by its session id (the launch's resumeSessionId); null: that path is not this CLI's
   * record. Absent: a session cannot be carried, and a fresh one is sent the turn's prompt again.
   */
  carrySession?(transcript: string, env: Readonly<Record<string, string>>): string | null;
  /** Where a stored sign-in shows without starting the TUI (`umbel doctor`); none: doctor cannot tell. */
  signInClues?(env: Readonly<Record<string, string | undefined>>): SignInClues;
  /**
   * The file where the CLI keeps a lasting dialog answer (a dialog with `lasting`), from the
   * worker's environment: what spawn tells the user, so they know where to undo it.
   */
  dialogRecord?(env: Readonly<Record<string, string | undefined>>): string;
  /** Hook events to register; the engine builds one command per event. */
  readonly hookEvents: readonly string[];
  /** How its hook payloads name the event, the session and the transcript. */
  readonly hookWire: HookWire;
  classifyScreen(screen: string): ScreenState;
  /** The screen without what moves while nothing happens (spinner glyphs, elapsed-time counters). */
  stillScreen(screen: string): string;
  /** The text to paste for a prompt (normalised; neutralises command prefixes). */
  preparePrompt(prompt: string): string;
  /** The hook event that proves a prompt was taken. */
  readonly submitEvent: string;
  interpretEvent(event: HookEvent): TurnSignal;
  /**
   * Where the session record is, from what the hooks announced (the transcript path, the session
   * id). Default: the transcript file itself. opencode: a query of its SQLite database.
   */
  recordSource?(locator: string, sessionId: string | null): RecordSource;
  /** The final assistant text of the turn started by promptId (or the last human turn). */
  parseAnswer(transcript: string, promptId: string | null): TranscriptAnswer;
  /**
   * The turn's StructuredOutput calls the CLI refused itself, its tool not loaded yet (the call
   * never reached umbel's server): claude's "No such tool available". Absent: none can happen.
   */
  refusedStructuredCalls?(transcript: string, promptId: string | null): number;
  /**
   * Follows one turn's transcript lines as they are appended and renders them as claude's
   * stream-json messages (`umbel -p`). Optional: a provider without it gets text and json output only.
   */
  trackTurn?(promptId: string | null): TurnTracker;
  /**
   * The whole session record (the transcript's lines; a record query's rows) as its human turns in
   * order: the prompt as the CLI recorded it and the turn's messages as trackTurn renders them
   * (ACP's `session/load` replays a resumed session from it). Total: bad lines are skipped.
   */
  readConversation(lines: readonly string[]): ConversationTurn[];
  /** false: the SessionStart hook fires at the first prompt (codex), so ready is the screen alone. */
  readonly sessionStartAtLaunch?: boolean;
  /**
   * false: an idle-looking screen proves nothing about the turn, so only the events end it (wait has
   * no idle-composer rule, status and send ask the events): codex streams text with no busy marker;
   * opencode's pane lags its plugin's events by seconds under load, and the plugin ends every turn.
   */
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
  /** The CLI's tool vocabulary, as the dialects read a transcript's calls (core/dialects/tool-kind.ts). */
  readonly tools: ToolVocabulary;
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
  /**
   * Its conversations live in each worker's own home (gemini's GEMINI_CLI_HOME), so a new worker
   * cannot resume another's (`run --resume` starts such a worker fresh and says why).
   */
  readonly conversationsPerWorker?: boolean;
  /** How `umbel answer` reads this CLI's prompts (optional: numbered menus and core/fleet/answer.ts's meanings). */
  readonly answer?: AnswerSpec;
  /** How `spawn --allow/--deny` rules are answered (optional: without it they are refused). */
  readonly policy?: PolicySpec;
  /** Which hook events end a turn, for `spawn --notify` (optional: without them it is refused). */
  readonly notifyRules?: readonly NotifyRule[];
  /**
   * How the CLI records a turn a subscription usage limit stopped, and whether it continues by
   * itself after the reset (docs/limits.md). None: a limit is an ordinary provider-error.
   */
  readonly limits?: ProviderLimits;
  /** Tokens, turns, context, model, cost and windows from its own records; none: status shows null. */
  readTelemetry?(records: TelemetryRecords): Telemetry;
  /**
   * Whether its records hold the numbers of the turn that ended (claude: the statusline JSON it
   * rewrites ~0.4 s after Stop). None: they do as soon as the turn ended (codex and gemini read
   * them from the transcript the turn's end was read from).
   */
  turnTelemetrySettled?(records: TelemetryRecords, promptId: string | null): boolean;
  /** Where the CLI records the session's cost (claude: its statusline JSON); none: no cost budget. */
  readonly costRecord?: string;
  /**
   * The variables that move a worker off its subscription when they reach it, and where to (`status`
   * reports the route from them). Default: every explicitOnlyEnv name is an API key.
   */
  readonly billingEnv?: BillingEnv;
};

/**
 * A hook event that ends a turn with `reason` (core/fleet/notify.ts), when its payload line matches `must`
 * and not `never` (extended regexes: claude's first Stop of a turn with a background agent running
 * is not its end, nor a permission request umbel's policy answered).
 */
export type NotifyRule = {
  readonly event: string;
  readonly reason: "stop" | "input" | "provider-error";
  readonly must?: string;
  readonly never?: string;
};

/**
 * Where a CLI lets a hook decide a tool call (core/fleet/policy/compile.ts), as measured per CLI: an allow rule
 * answers its permission request (null: the CLI's own allowlist takes allow rules, unlogged); a
 * deny rule refuses the call before it runs.
 */
export type PolicySpec = {
  readonly allowEvent: string | null;
  readonly denyEvent: string;
  /** Tools whose argument (`command`) is a shell command, read by core/fleet/policy/shell-scan.ts. */
  readonly shellTools: readonly string[];
  /** `Tool(text)` means "starts with text" (gemini's own rules) rather than "exactly text". */
  readonly exactIsPrefix?: boolean;
  /**
   * Where the CLI's own allowlist takes allow rules (allowEvent null): its deny event can force a
   * question, so a call of an allow rule's tool that umbel would not allow is asked there, and the
   * CLI's allowlist never runs what umbel's allow would not (gemini's BeforeTool `ask`).
   */
  readonly asksAtDenyEvent?: boolean;
  /** What the hook prints for a decision at `event` (its JSON output). */
  answer(verdict: "allow" | "deny" | "ask", event: string, reason: string): Readonly<Record<string, unknown>>;
  /**
   * A non-interactive worker (spawn --non-interactive, umbel -p): the hook event that fires only when
   * the CLI would ask a person, and what the model is told when umbel denies it there (core/fleet/policy/compile.ts
   * TOOL_PLACEHOLDER stands for the call's tool name, put in by core/fleet/policy/decide.ts). None: the CLI
   * is made non-interactive by its launch flags instead.
   */
  readonly askDenial?: { readonly event: string; readonly message: string };
};

/** What `answer` needs from a provider: what allow / always / deny look like on its menus, and its menus. */
export type AnswerSpec = {
  readonly meanings?: AnswerMeanings;
  /** Its menus mark the highlighted option by colour only: readMenu gets the screen with its escapes. */
  readonly escapes?: boolean;
  /** The options of the prompt on screen (default: core/fleet/answer.ts readMenu, `N. Label (key)` lines). */
  readMenu?(screen: string): PromptOption[];
};

/** A provider that runs straight from its flags and env (claude: hooks in `--settings`). */
export type PlainProvider = ProviderCommon & {
  readonly home?: undefined;
  planLaunch(input: LaunchInput): LaunchPlan;
};

/**
 * A provider that runs in a umbel-owned home (codex CODEX_HOME, gemini GEMINI_CLI_HOME): the engine
 * lays the home out first, and the launch planner cannot be called without it.
 */
export type HomedProvider = ProviderCommon & {
  readonly home: ProviderHome;
  planLaunch(input: LaunchInput, home: LaidOutHome): LaunchPlan;
};

/** Signs of a sign-in that can be read without starting the CLI; file contents are never read. */
export type SignInClues = {
  /** Any of these existing means a stored login. */
  readonly files: readonly string[];
  /** A JSON file whose top-level `key` names the signed-in account (not a secret). */
  readonly account?: { readonly file: string; readonly key: string };
  /** Variables that sign the CLI in by themselves and that its workers inherit. */
  readonly env: readonly string[];
  /** On macOS the login may live in the Keychain, which umbel does not read. */
  readonly keychainOnMac?: boolean;
};

/** The contract every provider fulfils; `provider.home` tells the two kinds apart. */
export type Provider = PlainProvider | HomedProvider;

export type StallInput = {
  /** The turn's events (after the baseline), in log order. */
  readonly events: readonly HookEvent[];
  /** When umbel last saw progress: the turn's start, a new non-marker event, or a transcript change. */
  readonly lastProgressAt: number;
  readonly now: number;
  /** The screen is the provider's busy screen (gemini: the spinner with "esc to cancel"). */
  readonly busy: boolean;
  readonly stallMs?: number;
};

export type Stall =
  | { readonly stalled: false; readonly attempts: number }
  | { readonly stalled: true; readonly attempts: number; readonly sinceMs: number; readonly error: string };

/** Provider.accountHome's answer. */
export type AccountHome = {
  readonly env: Readonly<Record<string, string>>;
  readonly hostEnv: Readonly<Record<string, string>>;
};
