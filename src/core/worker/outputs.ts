import { z } from "zod";
import { Placement } from "../accounts/placement.ts";
import { BrokenWorker } from "./broken.ts";

/**
 * What each verb answers, one schema per result. The operations return these types, `--json` prints
 * them, and the MCP tools declare them as their output schemas (`structuredContent` is checked
 * against them by the client, so a field missing here is a field a host rejects). The wait outcome
 * is in outcome.ts, the bound report in bound-text.ts and worker status in worker-status.ts.
 */

const Name = z.string().describe("Worker name");
const ElapsedMs = z.number().describe("How long it took, in milliseconds");

/** A startup dialog umbel answered (spawn reports each, on stderr and in its result). */
export const DialogAnswer = z.object({
  dialog: z.string().describe("Which dialog: trust, add-dir, api-key, …"),
  answer: z.string().optional().describe("The option umbel chose, as the screen words it"),
  folders: z.array(z.string()).optional().describe("A trust question: the folders the answer trusts"),
  lasting: z
    .boolean()
    .describe(
      "The CLI keeps this answer in your own configuration after the worker is gone (claude's trust dialog: projects[…].hasTrustDialogAccepted in .claude.json)",
    ),
  record: z.string().optional().describe("A lasting answer: the file the CLI keeps it in"),
});
export type DialogAnswer = z.infer<typeof DialogAnswer>;

export const SpawnResult = z.object({
  name: Name,
  provider: z.string().describe("The agent CLI running the worker (claude, codex, gemini, opencode)"),
  cwd: z.string().describe("The worker's working directory (absolute)"),
  sessionId: z.string().describe("The CLI's own session id"),
  state: z.literal("ready").describe("Always ready: spawn returns only once the TUI takes prompts"),
  elapsedMs: ElapsedMs,
  dialogsAnswered: z.array(z.string()).describe("Startup dialogs umbel answered (e.g. trust): their names"),
  dialogs: z.array(DialogAnswer).describe("Each startup dialog umbel answered, with what it answered"),
  worktree: z
    .object({
      path: z.string().describe("The worktree (the worker's cwd is in it)"),
      branch: z.string().describe("Its new branch, umbel/<name>"),
      base: z.string().describe("The commit or branch it started from"),
    })
    .optional()
    .describe("With worktree: the worker's own git worktree"),
  placement: Placement.optional().describe(
    "With account auto: the account picked, why, and every account of the provider as placement saw it",
  ),
});
export type SpawnResult = z.infer<typeof SpawnResult>;

export const SendResult = z.object({
  name: Name,
  baseline: z
    .number()
    .int()
    .describe("The events log's line count before this prompt: pass it as `after` to wait and read"),
  promptId: z.string().nullable().describe("The CLI's id for the prompt, when its hook gives one"),
  enters: z.number().int().describe("How many Enter presses it took"),
  elapsedMs: ElapsedMs,
});
export type SendResult = z.infer<typeof SendResult>;

export const ReadResult = z.object({
  name: Name,
  text: z.string().describe("The final assistant text of the turn"),
  turn: z.string().describe("Where the turn stands: stop, failure, running, input, none"),
  isError: z.boolean().describe("The turn ended in a provider error; text is the error"),
  empty: z.boolean().describe("The turn ended without any assistant text"),
  promptId: z.string().nullable().describe("The id of the prompt whose turn this was"),
  sessionId: z.string().nullable().describe("The CLI's session id"),
  transcriptPath: z.string().nullable().describe("The CLI's transcript file, when known"),
  source: z
    .enum(["hook", "transcript", "none"])
    .describe("Where the text came from: the end-of-turn hook, the transcript, or nowhere"),
  assistantMessages: z.number().int().describe("Assistant messages (API round trips) in the turn"),
  structured: z
    .unknown()
    .describe(
      "The object the turn returned through StructuredOutput (send --json-schema to a --structured worker), or null",
    ),
});
export type ReadResult = z.infer<typeof ReadResult>;

/** How many ignored paths kill's result lists (its note names the first few). */
export const IGNORED_LISTED = 50;

export const KillWorktree = z
  .object({
    path: z.string().describe("The worktree"),
    branch: z.string().describe("Its branch"),
    removed: z.boolean().describe("The worktree is gone (false: kept, it holds uncommitted work)"),
    branchKept: z
      .boolean()
      .describe("The branch is kept: it has commits its base lacks (or the tree was kept)"),
    savedBranch: z
      .string()
      .nullable()
      .describe(
        "A branch kill made at the worktree's HEAD so its commits stay reachable (HEAD was detached, or its commits were on no branch); null: none needed",
      ),
    ignored: z
      .object({
        count: z.number().int().describe("How many ignored files and folders went with the worktree"),
        paths: z
          .array(z.string())
          .describe(`The first ${IGNORED_LISTED} of them (a folder once, ending in /)`),
      })
      .describe("The ignored files and folders (.env, node_modules/) deleted with the worktree"),
    note: z.string().describe("What was removed or kept, and where"),
  })
  .describe("A worker spawned with worktree: what kill did with it");
export type KillWorktree = z.infer<typeof KillWorktree>;

export const KillResult = z.object({
  name: Name,
  state: z.enum(["killed", "purged"]).describe("killed: a tombstone is kept · purged: removed too"),
  wasAlive: z.boolean().describe("The worker was running when killed"),
  worktree: KillWorktree.optional(),
  unrecorded: z
    .array(
      z.object({
        file: z.string().describe("The tombstone's file: last-screen.txt or meta.json"),
        error: z.string().describe("Why it could not be written"),
      }),
    )
    .optional()
    .describe("What kill could not write (a full disk …): the worker was stopped all the same"),
  broken: BrokenWorker.optional().describe(
    "The worker's state could not be read: --purge removed it as it was",
  ),
});
export type KillResult = z.infer<typeof KillResult>;

export const PruneResult = z.object({
  removed: z
    .array(z.string())
    .describe("Workers removed (dead, killed, or broken with no live tmux session)"),
  kept: z
    .array(z.string())
    .describe("Workers left alone (alive, half-made, or broken beside a live tmux session)"),
  broken: z
    .array(
      BrokenWorker.extend({
        name: Name,
        removed: z
          .boolean()
          .describe("Removed (false: its tmux session is alive; kill NAME --purge removes it)"),
      }),
    )
    .optional()
    .describe("The broken workers prune found (present when there were some)"),
  worktrees: z
    .array(KillWorktree.extend({ name: Name }))
    .optional()
    .describe(
      "What prune did with each removed worker's --worktree (present when there were some), as kill says it",
    ),
});
export type PruneResult = z.infer<typeof PruneResult>;

export const CaptureResult = z.object({
  name: Name,
  screen: z.string().describe("The screen as text"),
  source: z
    .enum(["live", "dead-pane", "tombstone", "none"])
    .describe("live · dead-pane: the exited CLI's last screen · tombstone: recorded at kill · none"),
});
export type CaptureResult = z.infer<typeof CaptureResult>;

export const LogEntry = z.object({
  index: z.number().int().describe("Line in the events log; `baseline` counts these"),
  event: z.string().describe("Hook event name (SessionStart, UserPromptSubmit, Stop …)"),
  payload: z.record(z.string(), z.unknown()).describe("The hook's JSON payload"),
});
export type LogEntry = z.infer<typeof LogEntry>;

export const LogsResult = z.object({
  name: Name,
  events: z.array(LogEntry).describe("The worker's events, in order"),
});
export type LogsResult = z.infer<typeof LogsResult>;

export const KeysResult = z.object({
  name: Name,
  sent: z.array(z.string()).describe("The keys pressed, in order"),
});
export type KeysResult = z.infer<typeof KeysResult>;

export const AttachResult = z.object({
  name: Name,
  exitCode: z.number().int().describe("tmux attach's exit status (0 after a detach)"),
});
export type AttachResult = z.infer<typeof AttachResult>;
