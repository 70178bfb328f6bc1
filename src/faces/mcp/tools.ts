import { boundText, TextBound } from "../../core/bound-text.ts";
import type { Outcome } from "../../core/outcome.ts";
import { EmptyInput, KillInput, ReadInput, SendInput, SpawnInput, WaitInput } from "../../core/schemas.ts";
import { killWorker, pruneWorkers } from "../../operations/kill.ts";
import { readAnswer } from "../../operations/read.ts";
import { sendPrompt } from "../../operations/send.ts";
import { spawnWorker } from "../../operations/spawn.ts";
import { DEFAULT_WAIT_TIMEOUT_MS, waitForTurn } from "../../operations/wait.ts";
import { KillOutput, PruneOutput, ReadOutput, SendOutput, SpawnOutput, WaitOutput } from "./output.ts";
import { waitProgress } from "./progress.ts";
import { renderPrune, renderRead, renderSend, renderSpawn, renderWait } from "./render.ts";
import { defineTool, LOOKS, type UmbelTool } from "./tool.ts";
import { inspectTools } from "./tools-inspect.ts";
import { runTool } from "./tools-run.ts";

/**
 * The worker-lifecycle tools (spawn → send → wait → read → kill) plus prune; the looking-around
 * tools are in tools-inspect.ts. Inputs are the CLI's own schemas from core/schemas.ts.
 */

/** evidence.message is the whole last message; the wait result keeps only its start. */
const EVIDENCE_MESSAGE_CHARS = 2000;

/** umbel_read's input: the read verb's fields plus how to bound a long answer. */
const ReadToolInput = ReadInput.extend(TextBound.shape);

const lifecycleTools: UmbelTool[] = [
  defineTool({
    name: "umbel_spawn",
    title: "Start a worker",
    input: SpawnInput,
    output: SpawnOutput,
    // A new worker is additive (nothing existing changes); it runs an agent that talks to its API.
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    run: async (input, { deps }) => {
      const result = await spawnWorker(deps, input);
      return { data: result, text: renderSpawn(result) };
    },
  }),
  defineTool({
    name: "umbel_send",
    title: "Send a prompt",
    input: SendInput,
    output: SendOutput,
    // The worker acts on the prompt: with its tools it may change files, so this is not read-only.
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    run: async (input, { deps }) => {
      const result = await sendPrompt(deps, input);
      return { data: result, text: renderSend(result) };
    },
  }),
  defineTool({
    name: "umbel_wait",
    title: "Wait for the turn to end",
    input: WaitInput,
    output: WaitOutput,
    annotations: LOOKS,
    run: async (input, { deps, report }) => {
      const onProgress = waitProgress(report, input.timeout ?? DEFAULT_WAIT_TIMEOUT_MS);
      const outcome = shortenEvidence(await waitForTurn(deps, input, onProgress));
      return { data: outcome, text: renderWait(outcome) };
    },
  }),
  defineTool({
    name: "umbel_read",
    title: "Read the answer",
    input: ReadToolInput,
    output: ReadOutput,
    annotations: LOOKS,
    run: async ({ mode, maxChars, maxLines, section, ...input }, { deps }) => {
      const bound = { mode, maxChars, maxLines, section };
      const result = await readAnswer(deps, input);
      const bounded = boundText(result.text, stripUndefined(bound));
      return {
        data: { ...result, text: bounded.text, bound: bounded.report },
        text: renderRead({ ...result, text: bounded.text }, bounded.report),
      };
    },
  }),
  defineTool({
    name: "umbel_kill",
    title: "Stop a worker",
    input: KillInput,
    output: KillOutput,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    run: async (input, { deps }) => {
      const result = await killWorker(deps, input);
      return { data: result, text: `${result.state} ${result.name}` };
    },
  }),
  defineTool({
    name: "umbel_prune",
    title: "Remove dead workers",
    input: EmptyInput,
    output: PruneOutput,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    run: async (_input, { deps }) => {
      const result = await pruneWorkers(deps);
      return { data: result, text: renderPrune(result) };
    },
  }),
];

export const TOOLS: readonly UmbelTool[] = [...lifecycleTools, ...inspectTools, runTool];

function shortenEvidence(outcome: Outcome): Outcome & { evidence: { messageTruncated?: boolean } } {
  const message = outcome.evidence.message;
  if (typeof message !== "string") return outcome;
  const bounded = boundText(message, { maxChars: EVIDENCE_MESSAGE_CHARS });
  if (!bounded.report.truncated) return outcome;
  return { ...outcome, evidence: { ...outcome.evidence, message: bounded.text, messageTruncated: true } };
}

/** exactOptionalPropertyTypes: an absent field must be absent, not undefined. */
function stripUndefined<T extends Record<string, unknown>>(
  value: T,
): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}
