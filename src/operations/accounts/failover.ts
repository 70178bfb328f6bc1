import {
  earliestReset,
  FAILOVER_LOG_FILE,
  type FailoverMove,
  type FailoverResult,
  parseFailoverLog,
} from "../../core/accounts/failover.ts";
import { placeAccount, sawLimit } from "../../core/accounts/placement.ts";
import { DeliveryError } from "../../core/errors.ts";
import { CONTINUATION_PROMPT, type UsageLimit } from "../../core/limits/limits.ts";
import type { Deps } from "../../core/ports.ts";
import type { HookEvent } from "../../core/providers/types.ts";
import { findSessionId, findTranscriptPath } from "../../core/wait/turn.ts";
import type { SendResult } from "../../core/worker/outputs.ts";
import { relaunchWorker } from "../spawn/relaunch.ts";
import { deliverTurn } from "../worker/send.ts";
import { viewWorker } from "../worker/view.ts";
import type { Worker } from "../worker/worker.ts";
import { accountCandidates } from "./candidates.ts";

/**
 * `--on-limit failover`, the driver's half (the wait machine decides when, core/wait/failover.ts):
 * the limit is recorded on the account being left, placement picks another account of the same
 * provider (never one this wait left, never an API-key one), the session is carried and the CLI
 * relaunched there in place, and the interrupted turn continued the way `--on-limit continue`
 * continues one (CONTINUATION_PROMPT through `send`'s path: guardrails, budgets and the queue carry
 * over). A CLI whose session cannot be carried gets a fresh one, sent the turn's prompt again.
 */
export async function failOverWorker(
  deps: Deps,
  worker: Worker,
  command: FailoverCommand,
): Promise<{ result: FailoverResult; worker: Worker }> {
  const { name } = worker.meta;
  // Two waits on one worker both see its limit: one moves it, the other reports the limit.
  const lock = await deps.store.lock(name, "failover");
  if (!lock)
    return {
      result: { status: "failed", error: "another umbel is moving this worker to another account" },
      worker,
    };
  try {
    const now = await deps.store.readMeta(name);
    if ((now.account ?? null) !== (worker.meta.account ?? null))
      return {
        result: {
          status: "failed",
          error: `another umbel moved this worker to ${now.account ?? "the default sign-in"} meanwhile`,
        },
        worker,
      };
    return await moveWorker(deps, worker, command);
  } finally {
    await lock.release();
  }
}

type FailoverCommand = {
  readonly limit: UsageLimit;
  readonly left: readonly (string | null)[];
  readonly until: number;
};

async function moveWorker(
  deps: Deps,
  worker: Worker,
  command: FailoverCommand,
): Promise<{ result: FailoverResult; worker: Worker }> {
  const { meta, provider } = worker;
  const now = deps.clock.now();
  const at = new Date(now).toISOString();
  const from = meta.account ?? null;
  await deps.store.updateAccountWindows(provider.id, from, (known) =>
    sawLimit(known, { limit: command.limit, at, worker: meta.name }),
  );
  const candidates = await accountCandidates(deps, provider);
  const decision = placeAccount(candidates, now, [from, ...command.left]);
  if (!decision.placed) {
    deps.trace.mark(`failover ${meta.name}: not placed (${decision.reason})`);
    return {
      result: {
        status: "not-placed",
        earliestReset: earliestReset(command.limit, candidates, now),
        reason: decision.reason,
      },
      worker,
    };
  }
  const to = decision.placement.account;
  const view = await viewWorker(deps, worker);
  const transcript = findTranscriptPath(provider, view.events);
  const resume =
    provider.carrySession && transcript !== null
      ? { sessionId: findSessionId(provider, view.events) ?? meta.sessionId, transcript }
      : null;
  // A fresh session, or a resumed one that lost the limited turn's prompt, is sent that prompt again.
  const again = resume === null || provider.limits?.dropsLimitedPrompt === true;
  const prompt = again ? turnPrompt(view.events) : CONTINUATION_PROMPT;
  const move: FailoverMove = { from, to, limit: command.limit, at, carried: resume ? "resumed" : "fresh" };
  if (prompt === null)
    return {
      result: { status: "failed", error: "the turn's prompt is not in its events to send again" },
      worker,
    };
  deps.trace.mark(`failover ${meta.name}: ${from ?? "(default)"} → ${to ?? "(default)"} (${move.carried})`);
  let stopped = false;
  let moved: Worker;
  try {
    moved = await relaunchWorker(deps, worker, {
      account: to,
      resume,
      until: command.until,
      onStopped: () => {
        stopped = true;
      },
    });
  } catch (error) {
    return { result: { status: "failed", error: messageOf(error), ...(stopped ? { move } : {}) }, worker };
  }
  try {
    const sent = await continueTurn(deps, moved, prompt);
    // Shown before the relaunched CLI's first event: after the old one's last as the move began.
    await recordMove(deps, meta.name, { ...move, index: view.events.length });
    return { result: { status: "moved", move, baseline: sent.baseline }, worker: moved };
  } catch (error) {
    return {
      result: { status: "failed", error: `the turn was not continued: ${messageOf(error)}`, move },
      worker: moved,
    };
  }
}

/**
 * gemini 0.61.0 resumed with `--resume` is ready (SessionStart, idle composer) a moment before it
 * takes input: a prompt pasted then was dropped (measured: the composer empty, no BeforeAgent; the
 * same send 10 s later was taken). send clears the composer first, so trying again cannot double it.
 */
const CONTINUE_TRIES = 4;
const CONTINUE_RETRY_MS = 1000;

async function continueTurn(deps: Deps, worker: Worker, prompt: string): Promise<SendResult> {
  for (let attempt = 1; ; attempt++) {
    try {
      // The same turn goes on: its guard and schema stay as they are (as --on-limit continue's prompt).
      return await deliverTurn(deps, worker, prompt, undefined, "turn-loop");
    } catch (error) {
      if (!(error instanceof DeliveryError) || attempt >= CONTINUE_TRIES) throw error;
      deps.trace.mark(
        `failover ${worker.meta.name}: the continuation was not taken, again in ${CONTINUE_RETRY_MS} ms`,
      );
      await deps.clock.sleep(CONTINUE_RETRY_MS, deps.signal);
    }
  }
}

/** The prompt of the last turn a caller (not umbel's continuation) started, from its submit event. */
function turnPrompt(events: readonly HookEvent[]): string | null {
  for (let i = events.length - 1; i >= 0; i--) {
    const prompt = events[i]?.payload.prompt;
    if (typeof prompt === "string" && prompt !== CONTINUATION_PROMPT && prompt.trim() !== "") return prompt;
  }
  return null;
}

/** `logs` shows each move as `umbel:failover` at its place in the events log. */
async function recordMove(deps: Deps, name: string, record: FailoverMove & { index: number }): Promise<void> {
  const known = parseFailoverLog(await deps.store.readWorkerFile(name, FAILOVER_LOG_FILE));
  await deps.store.writeWorkerFile(name, FAILOVER_LOG_FILE, `${JSON.stringify([...known, record])}\n`);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
