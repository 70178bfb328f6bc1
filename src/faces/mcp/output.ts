import { z } from "zod";
import type { BoundReport } from "../../core/bound-text.ts";
import type { Outcome } from "../../core/outcome.ts";
import { OutcomeReason, WorkerState } from "../../core/schemas.ts";
import type { CaptureResult } from "../../operations/capture.ts";
import type { KeysResult } from "../../operations/keys.ts";
import type { KillResult, PruneResult } from "../../operations/kill.ts";
import type { ReadResult } from "../../operations/read.ts";
import type { SendResult } from "../../operations/send.ts";
import type { SpawnResult } from "../../operations/spawn.ts";
import type { StatusResult } from "../../operations/status.ts";

/**
 * The MCP tools' output schemas: the operations' result types as zod, so hosts get a JSON Schema for
 * `structuredContent`. The SDK's client rejects a property a schema does not list, so each schema is
 * checked against its operation's type at compile time (`Covers` below).
 */

const Name = z.string().describe("Worker name");
const ExitRecord = z
  .object({ exitCode: z.number().int().optional(), signal: z.string().optional() })
  .describe("How the CLI exited: its status, and the signal when one killed it");

export const SpawnOutput = z.object({
  name: Name,
  provider: z.string(),
  cwd: z.string().describe("The worker's working directory (absolute)"),
  sessionId: z.string().describe("The CLI's own session id"),
  state: z.literal("ready"),
  elapsedMs: z.number(),
  dialogsAnswered: z.array(z.string()).describe("Startup dialogs umbel answered (e.g. trust)"),
});

export const SendOutput = z.object({
  name: Name,
  baseline: z
    .number()
    .int()
    .describe("Pass as `after` to umbel_wait and umbel_read to follow exactly this turn"),
  promptId: z.string().nullable(),
  enters: z.number().int().describe("How many Enter presses it took"),
  elapsedMs: z.number(),
});

export const WaitOutput = z.object({
  reason: OutcomeReason.describe(
    "stop: the turn ended · input: needs a person · provider-error · idle · timeout · dead · aborted",
  ),
  exitCode: z.number().int().describe("The CLI's exit code for this outcome (0 stop, 122-126, 130)"),
  name: Name,
  baseline: z.number().int(),
  elapsedMs: z.number(),
  evidence: z.object({
    promptId: z.string().nullable().optional(),
    message: z
      .string()
      .nullable()
      .optional()
      .describe("The turn's final message (cut; umbel_read has it all)"),
    messageTruncated: z
      .boolean()
      .optional()
      .describe("`message` was cut; umbel_read returns the whole answer"),
    error: z.string().optional().describe("The provider's error kind"),
    prompt: z.string().optional().describe("What the worker is asking (outcome input)"),
    detail: z.string().optional(),
    exit: ExitRecord.nullable().optional(),
    screen: z.string().optional().describe("The last lines of the worker's screen"),
    stillForMs: z.number().optional(),
    timeoutMs: z.number().optional(),
    interrupted: z.boolean().optional(),
  }),
});

const BoundOutput = z
  .object({
    mode: z.enum(["head", "tail", "section", "full"]),
    truncated: z.boolean().describe("Some of the answer was left out"),
    totalChars: z.number().int(),
    totalLines: z.number().int(),
    shownChars: z.number().int(),
    shownLines: z.number().int(),
    fromLine: z.number().int().nullable(),
    toLine: z.number().int().nullable(),
    section: z.string().nullable(),
    headings: z.array(z.string()).describe("The answer's headings (when something was cut)"),
    note: z.string().nullable().describe("What was cut and how to get the rest"),
  })
  .describe("What of the answer `text` holds");

export const ReadOutput = z.object({
  name: Name,
  text: z.string().describe("The final assistant text of the turn (bounded: see `bound`)"),
  turn: z.string().describe("Where the turn stands: stop, failure, running, input, none"),
  isError: z.boolean().describe("The turn ended in a provider error; text is the error"),
  empty: z.boolean().describe("The turn ended without any assistant text"),
  promptId: z.string().nullable(),
  sessionId: z.string().nullable(),
  transcriptPath: z.string().nullable(),
  source: z.enum(["hook", "transcript", "none"]),
  assistantMessages: z.number().int(),
  bound: BoundOutput,
});

const Status = z.object({
  name: Name,
  provider: z.string(),
  state: WorkerState,
  cwd: z.string(),
  createdAt: z.string(),
  sessionId: z.string().nullable(),
  model: z.string().nullable(),
  pid: z.number().int().nullable(),
  exit: ExitRecord.nullable(),
  reason: z.string().nullable().describe("Why it is not running: killed, exited, pane-dead, gone"),
  prompt: z.string().nullable().describe("What it is asking, when state is needs-input"),
  events: z.number().int().describe("Hook events recorded so far"),
});
export const StatusOutput = Status;
export const LsOutput = z.object({ workers: z.array(Status) });

export const KillOutput = z.object({
  name: Name,
  state: z.enum(["killed", "purged"]),
  wasAlive: z.boolean(),
});

export const PruneOutput = z.object({
  removed: z.array(z.string()).describe("Workers removed (dead or killed)"),
  kept: z.array(z.string()).describe("Workers left alone (alive, or half-made)"),
});

export const CaptureOutput = z.object({
  name: Name,
  screen: z.string(),
  source: z.enum(["live", "dead-pane", "tombstone", "none"]),
});

export const LogsOutput = z.object({
  name: Name,
  events: z.array(
    z.object({
      index: z.number().int().describe("Line in the events log; `baseline` counts these"),
      event: z.string().describe("Hook event name (SessionStart, UserPromptSubmit, Stop …)"),
      payload: z.record(z.string(), z.unknown()),
    }),
  ),
});

export const KeysOutput = z.object({ name: Name, sent: z.array(z.string()) });

export const HelpOutput = z.object({
  topic: z.string(),
  topics: z.array(z.string()).describe("Every topic umbel_help knows"),
  text: z.string(),
});

/** true when every Result is a valid Schema value and Result has no key the schema lacks. */
type Covers<Schema, Result> = [Result] extends [Schema]
  ? [Exclude<keyof Result, keyof Schema>] extends [never]
    ? true
    : false
  : false;
type Assert<T extends true> = T;
type Out<S extends z.ZodType> = z.infer<S>;

// biome-ignore lint/correctness/noUnusedVariables: read by tsc alone, which fails here when a result drifts from its schema.
type OutputChecks = [
  Assert<Covers<Out<typeof SpawnOutput>, SpawnResult>>,
  Assert<Covers<Out<typeof SendOutput>, SendResult>>,
  Assert<Covers<Out<typeof WaitOutput>, Outcome>>,
  Assert<Covers<Out<typeof WaitOutput>["evidence"], Outcome["evidence"]>>,
  Assert<Covers<Out<typeof ReadOutput>, ReadResult & { bound: BoundReport }>>,
  Assert<Covers<Out<typeof BoundOutput>, BoundReport>>,
  Assert<Covers<Out<typeof StatusOutput>, StatusResult>>,
  Assert<Covers<Out<typeof KillOutput>, KillResult>>,
  Assert<Covers<Out<typeof PruneOutput>, PruneResult>>,
  Assert<Covers<Out<typeof CaptureOutput>, CaptureResult>>,
  Assert<Covers<Out<typeof KeysOutput>, KeysResult>>,
];
