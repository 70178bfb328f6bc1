import { z } from "zod";
import { MAX_DURATION_MS, parseDuration } from "./common/duration.ts";
import { parseJsonObject } from "./common/json.ts";
import { choiceError } from "./common/suggest.ts";
import { isKeyName, KEY_NAMES } from "./worker/key-names.ts";
import { isBlankPrompt } from "./worker/prompt.ts";

/**
 * One zod schema per concept. The CLI's argv parser, the MCP tool schemas and the workflow YAML
 * validation all read these objects; every field is described because the description is the help.
 */

export const WorkerName = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, "a worker name is 1-63 of a-z 0-9 - and starts with a letter or digit")
  .describe("Worker name: 1-63 characters of a-z, 0-9 and -, starting with a letter or digit");
export type WorkerName = z.infer<typeof WorkerName>;

export const ProviderId = z
  .enum(["claude", "codex", "gemini", "opencode"], { error: choiceError })
  .describe("Which agent CLI runs the worker");
export type ProviderId = z.infer<typeof ProviderId>;

/**
 * A request with its provider resolved. Every input that names a provider leaves it optional, so a
 * face can tell "none given" from "claude" and fill the default (core/worker/default-provider.ts); what
 * spawn, the pool and -p then run is this.
 */
export type WithProvider<T extends { provider?: ProviderId | undefined }> = Omit<T, "provider"> & {
  provider: ProviderId;
};

export const EnvName = z
  .string()
  .regex(
    /^[A-Za-z_][A-Za-z0-9_]*$/,
    "an environment variable name is letters, digits and _, not starting with a digit",
  );

const FromEnv = z
  .object({ fromEnv: EnvName.describe("Copy the value of this variable from umbel's own environment") })
  .strict();

const EnvValue = z.union([z.string(), FromEnv]);

export const EnvSpec = z
  .record(EnvName, EnvValue)
  .describe(
    "Extra environment for the worker: NAME → value, or NAME → {fromEnv: OTHER} to copy a secret by name. Values are never written to disk or put on a command line",
  );
export type EnvSpec = z.infer<typeof EnvSpec>;

/** "30m", "90s", "1500ms", "1h", or a bare number of seconds → milliseconds; at most 168h (7 days). */
export const Duration = z.union([z.string(), z.number()]).transform((value, ctx) => {
  const ms = parseDuration(value);
  if (ms === null) {
    ctx.addIssue({ code: "custom", message: `not a duration: ${JSON.stringify(value)} (try 90s, 10m, 1h)` });
    return z.NEVER;
  }
  if (ms > MAX_DURATION_MS) {
    const shown = JSON.stringify(
      typeof value === "string" && value.length > 40 ? `${value.slice(0, 40)}…` : value,
    );
    ctx.addIssue({ code: "custom", message: `${shown} is too long: a duration is at most 168h (7 days)` });
    return z.NEVER;
  }
  return ms;
});

/**
 * A prompt to type into a TUI. A blank one (nothing but whitespace once control characters are
 * dropped, as send does) submits nothing: send could only fail after its re-Enters.
 */
export const Prompt = z
  .string({ error: (issue) => (issue.input === undefined ? "the prompt is missing" : undefined) })
  .refine((text) => !isBlankPrompt(text), "the prompt is empty");

export const PermissionMode = z
  .enum(["default", "manual", "auto", "acceptEdits", "plan", "bypassPermissions", "dontAsk"], {
    error: choiceError,
  })
  .describe("Permission mode passed to the CLI (claude: --permission-mode)");
export type PermissionMode = z.infer<typeof PermissionMode>;

export function isJsonObjectText(text: string): boolean {
  return parseJsonObject(text) !== null;
}

// SpawnInput, spawn's input, is core/spawn/input.ts's: a short verb (ls, status, read) builds none of it.

export const SendInput = z
  .object({
    name: WorkerName,
    prompt: Prompt.describe("The prompt text, sent byte-exact (multi-line allowed; not blank)"),
    queue: z
      .boolean()
      .optional()
      .describe(
        "If the worker is busy, queue the prompt (sent in order once it is idle) instead of failing with exit 4",
      ),
  })
  .strict();
export type SendInput = z.infer<typeof SendInput>;

/** A turn's token budget (`--max-tokens`): every face reads this one schema. */
export const MaxTokens = z
  .number()
  .int()
  .positive()
  .describe(
    "Stop the turn (the provider's interrupt) once it has used more than this many tokens (input + output + cache, from the provider's own records); the outcome is limited (120) with window max-tokens",
  );

const Baseline = z
  .number()
  .int()
  .nonnegative()
  .describe("Wait only for events after this baseline (the `baseline` that send returned)");

export const WaitInput = z
  .object({
    name: WorkerName,
    after: Baseline.optional(),
    timeout: Duration.optional().describe(
      "Give up after this long (default 30m, at most 168h) with outcome timeout (124)",
    ),
    idleTimeout: Duration.optional().describe(
      "Return outcome idle (123) once screen, events and transcript have been still this long (at most 168h)",
    ),
    maxTokens: MaxTokens.optional(),
  })
  .strict();
export type WaitInput = z.infer<typeof WaitInput>;

export const ReadInput = z
  .object({
    name: WorkerName,
    after: Baseline.optional(),
  })
  .strict();
export type ReadInput = z.infer<typeof ReadInput>;

export const NameInput = z.object({ name: WorkerName }).strict();
export type NameInput = z.infer<typeof NameInput>;

/** The fleet view's own: this machine's workers only, no host asked (a remote umbel's always are). */
const LocalOnly = z
  .boolean()
  .optional()
  .describe("Only this machine's workers: no host of config.toml is asked");

export const LsInput = z.object({ local: LocalOnly }).strict();
export type LsInput = z.infer<typeof LsInput>;

/** `status NAME` shows one worker; `status` alone the fleet, because that is what a person types first. */
export const StatusInput = z
  .object({
    name: WorkerName.optional().describe("Worker name (none: every worker, as ls)"),
    local: LocalOnly.describe("Without a name: only this machine's workers, no host asked"),
  })
  .strict();
export type StatusInput = z.infer<typeof StatusInput>;

export const KillInput = z
  .object({
    name: WorkerName,
    purge: z.boolean().optional().describe("Also remove the tombstone (the session directory)"),
    force: z
      .boolean()
      .optional()
      .describe("Also remove the worker's git worktree when it holds uncommitted work (--worktree)"),
  })
  .strict();
export type KillInput = z.infer<typeof KillInput>;

export const CaptureInput = z
  .object({
    name: WorkerName,
    lines: z.number().int().positive().optional().describe("Include this many lines of scrollback"),
    escapes: z.boolean().optional().describe("Keep colour and attribute escape sequences"),
    keepBlank: z
      .boolean()
      .optional()
      .describe(
        "Keep the blank lines below the last text (the pane's full height); by default they are dropped",
      ),
  })
  .strict();
export type CaptureInput = z.infer<typeof CaptureInput>;

export const LogsInput = z
  .object({
    name: WorkerName,
    follow: z.boolean().optional().describe("Keep printing new events as they arrive"),
  })
  .strict();
export type LogsInput = z.infer<typeof LogsInput>;

export const EmptyInput = z.object({}).strict();

export const OutcomeReason = z.enum([
  "stop",
  "rejected",
  "input",
  "limited",
  "provider-error",
  "idle",
  "timeout",
  "dead",
  "aborted",
]);
export type OutcomeReason = z.infer<typeof OutcomeReason>;

export const WorkerState = z.enum([
  "starting",
  "idle",
  "busy",
  "needs-input",
  "failed",
  "orphaned",
  "dead",
  "killed",
  "broken",
]);
export type WorkerState = z.infer<typeof WorkerState>;

/** The states of a worker whose tmux session still runs its CLI. */
const RUNNING_STATES: ReadonlySet<string> = new Set<WorkerState>(["starting", "idle", "busy", "needs-input"]);

export function isRunningState(state: string): boolean {
  return RUNNING_STATES.has(state);
}

export const KeysInput = z
  .object({
    name: WorkerName,
    keys: z
      .array(z.string().min(1))
      .min(1, "give at least one key")
      .describe(
        "Keys by tmux name (Enter, Escape, Tab, BSpace, Space, Up, Down, C-c, 1, y …; modifiers C- M- S-), sent in order",
      ),
    literal: z.boolean().optional().describe("Type the keys as literal text instead of key names"),
  })
  .strict()
  // tmux types a name it does not know as text (exit 0), so `keys w1 NoSuchKey` typed "NoSuchKey".
  .superRefine((input, ctx) => {
    if (input.literal) return;
    input.keys.forEach((key, i) => {
      if (!isKeyName(key))
        ctx.addIssue({
          code: "custom",
          path: ["keys", i],
          message: `unknown key name ${JSON.stringify(key)}: keys are ${KEY_NAMES}; to type text, use literal (--literal)`,
        });
    });
  });
export type KeysInput = z.infer<typeof KeysInput>;
