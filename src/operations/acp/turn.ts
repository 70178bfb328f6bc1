import type { RequestPermissionOutcome, SessionUpdate, ToolCallUpdate } from "@agentclientprotocol/sdk";
import { choiceOf, permissionOptions } from "../../core/acp/permission.ts";
import { decidePromptEnd, type PromptEnd } from "../../core/acp/stop.ts";
import { createUpdateMapper } from "../../core/acp/updates.ts";
import { PromptGoneError } from "../../core/errors.ts";
import type { Deps } from "../../core/ports.ts";
import type { StreamMessage } from "../../core/providers/transcript-types.ts";
import type { Outcome } from "../../core/wait/outcome.ts";
import { answerPrompt, promptMenu } from "../fleet/answer.ts";
import { armEarly, followTurn, markTranscript } from "../print/follow.ts";
import { sendPrompt } from "../worker/send.ts";
import type { Worker } from "../worker/worker.ts";

/** What a turn asks of its ACP client: to show an update, and to decide a permission prompt. */
export type AcpClientPort = {
  update(update: SessionUpdate): Promise<void>;
  askPermission(request: {
    toolCall: ToolCallUpdate;
    options: ReturnType<typeof permissionOptions>;
  }): Promise<RequestPermissionOutcome>;
};

export type AcpTurnInput = {
  readonly prompt: string;
  readonly maxTurns?: number | undefined;
  readonly timeout?: number | undefined;
  /** Fires on the client's session/cancel for this prompt. */
  readonly cancel: AbortSignal;
};

/**
 * After a cancel's interrupt keys, how long the turn may take to end by itself (an interrupted TUI
 * is seen idle for 2 s first: core/wait/outcome.ts) before umbel stops following it.
 */
const CANCEL_GRACE_MS = 10_000;

/**
 * One ACP prompt on a ready worker: send, then follow the turn, each message of its record mapped to
 * the client's updates as it lands (core/acp/updates.ts). A permission prompt (wait's `input`) asks
 * the client, is answered on the worker (`answer` with its input id) and the same turn is followed
 * on; a cancel presses the provider's interrupt keys (as `keys Escape`) and the turn ends
 * `cancelled`, the worker ready for the next prompt.
 */
export async function runAcpTurn(
  deps: Deps,
  worker: Worker,
  input: AcpTurnInput,
  client: AcpClientPort,
): Promise<PromptEnd> {
  const { name } = worker.meta;
  const mapper = createUpdateMapper();
  const mark = await markTranscript(deps, worker);
  const early = await armEarly(deps, worker, input.maxTurns);
  const sent = await sendPrompt(deps, { name, prompt: input.prompt }, worker).catch(async (error: unknown) => {
    await early.undo().catch(() => undefined);
    throw error;
  });
  // Followed again after each answer, from the same place: the messages already mapped are skipped.
  let mapped = 0;
  let modelStopReason: string | null = null;
  let pushing: Promise<void> = Promise.resolve();
  const onMessage = (index: { n: number }) => (message: StreamMessage) => {
    if (index.n++ < mapped) return;
    mapped++;
    const stopReason = (message.message as { stop_reason?: unknown } | undefined)?.stop_reason;
    if (message.type === "assistant" && typeof stopReason === "string") modelStopReason = stopReason;
    for (const update of mapper.push(message)) pushing = pushing.then(() => client.update(update));
  };
  const giveUp = new AbortController();
  let cancelled = false;
  const onCancel = () => {
    cancelled = true;
    void interrupt(deps, worker);
    const timer = setTimeout(() => giveUp.abort(), CANCEL_GRACE_MS);
    giveUp.signal.addEventListener("abort", () => clearTimeout(timer), { once: true });
  };
  if (input.cancel.aborted) onCancel();
  else input.cancel.addEventListener("abort", onCancel, { once: true });
  const signal = AbortSignal.any([...(deps.signal ? [deps.signal] : []), giveUp.signal]);
  let preArmed = early.armed;
  try {
    for (;;) {
      const followed = await followTurn(
        { ...deps, signal },
        worker,
        sent,
        mark,
        { maxTurns: input.maxTurns, timeout: input.timeout, preArmed },
        onMessage({ n: 0 }),
      );
      preArmed = false;
      await pushing;
      const outcome: Outcome = followed.outcome;
      if (outcome.reason === "input") {
        await decide(deps, worker, outcome, client, mapper.pendingCall(), () => cancelled, input.cancel);
        continue;
      }
      return decidePromptEnd({
        outcome: giveUp.signal.aborted ? { ...outcome, reason: "aborted" } : outcome,
        maxTurnsHit: followed.maxTurnsHit,
        cancelled,
        modelStopReason,
      });
    }
  } finally {
    input.cancel.removeEventListener("abort", onCancel);
    giveUp.abort();
  }
}

/** The permission prompt the worker shows, asked of the client and answered on the worker. */
async function decide(
  deps: Deps,
  worker: Worker,
  outcome: Outcome,
  client: AcpClientPort,
  pending: ReturnType<ReturnType<typeof createUpdateMapper>["pendingCall"]>,
  isCancelled: () => boolean,
  cancel: AbortSignal,
): Promise<void> {
  const inputId = outcome.evidence.inputId;
  let choice: "allow" | "always" | "deny" = "deny";
  if (!isCancelled()) {
    const menu = await promptMenu(deps, worker);
    const prompt = outcome.evidence.prompt ?? "the worker asks for permission";
    const toolCall: ToolCallUpdate = pending
      ? { toolCallId: pending.toolCallId, title: pending.title, kind: pending.kind, status: "pending" }
      : { toolCallId: `permission-${inputId ?? "prompt"}`, title: prompt, kind: "other", status: "pending" };
    const asked = client.askPermission({ toolCall, options: permissionOptions(menu.options, menu.meanings) });
    const cancelledMeanwhile = new Promise<RequestPermissionOutcome>((resolve) => {
      if (cancel.aborted) resolve({ outcome: "cancelled" });
      cancel.addEventListener("abort", () => resolve({ outcome: "cancelled" }), { once: true });
    });
    choice = choiceOf(await Promise.race([asked, cancelledMeanwhile]));
  }
  try {
    await answerPrompt(deps, { name: worker.meta.name, choice, ...(inputId ? { inputId } : {}) });
  } catch (error) {
    // Someone else (a person attached, another caller) answered it first: the turn goes on either way.
    if (!(error instanceof PromptGoneError)) throw error;
  }
}

/** The provider's interrupt keys, as `umbel keys NAME Escape` presses them. */
async function interrupt(deps: Deps, worker: Worker): Promise<void> {
  for (const key of worker.provider.interruptKeys ?? ["Escape"])
    await deps.tmux.sendKeys(worker.meta.name, [key]).catch(() => undefined);
}
