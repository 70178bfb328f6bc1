import type { RequestPermissionOutcome, SessionUpdate, ToolCallUpdate } from "@agentclientprotocol/sdk";
import { choiceOf, permissionOptions } from "../../core/acp/permission.ts";
import { decidePromptEnd, type PromptEnd } from "../../core/acp/stop.ts";
import { createUpdateMapper } from "../../core/acp/updates.ts";
import { PromptGoneError } from "../../core/errors.ts";
import type { GuardedSendInput } from "../../core/guard/fields.ts";
import type { Deps } from "../../core/ports.ts";
import type { StreamMessage } from "../../core/providers/transcript-types.ts";
import type { Outcome } from "../../core/wait/outcome.ts";
import { answerPrompt, promptMenu } from "../fleet/answer.ts";
import { runGuard } from "../guard/guard.ts";
import type { TurnRunner } from "../guard/turn.ts";
import { armEarly, followTurn, markTranscript } from "../print/follow.ts";
import { DEFAULT_WAIT_TIMEOUT_MS, type WaitProgress } from "../wait/wait.ts";
import { deliverTurn, sendPrompt } from "../worker/send.ts";
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
  /** The prompt's guardrails (the face's --accept / --json-schema): checked, fed back, retried, halted. */
  readonly guard?: Pick<GuardedSendInput, "accept" | "jsonSchema" | "maxAttempts" | "acceptTimeout">;
  /** Fires on the client's session/cancel for this prompt. */
  readonly cancel: AbortSignal;
};

/**
 * After a cancel's interrupt keys: the turn is over for the client once the TUI shows its idle
 * composer on two looks in a row (claude's fake and the real 2.1.332 redraw within ~100 ms of
 * Escape), or after the grace at most. Waiting for the wait's own verdict instead cost ~5.5 s: an
 * interrupted turn fires no end hook, so it is the idle composer held 2 s, then the 3 s drain.
 */
const CANCEL_GRACE_MS = 10_000;
const CANCEL_POLL_MS = 150;

/** The end of an ACP prompt, and what a `--json-schema` turn returned. */
export type AcpTurnEnd = { readonly end: PromptEnd; readonly structured?: unknown };

/**
 * One ACP prompt on a ready worker: send, then follow the turn, each message of its record mapped to
 * the client's updates as it lands (core/acp/updates.ts). A permission prompt (wait's `input`) asks
 * the client, is answered on the worker (`answer` with its input id) and the same turn is followed
 * on; a cancel presses the provider's interrupt keys (as `keys Escape`) and the turn ends
 * `cancelled`, the worker ready for the next prompt. With guardrails the guard's loop runs as for
 * `wait` (operations/guard/guard.ts): each feedback prompt is shown as the user's message it is.
 */
export async function runAcpTurn(
  deps: Deps,
  worker: Worker,
  input: AcpTurnInput,
  client: AcpClientPort,
): Promise<AcpTurnEnd> {
  const { name } = worker.meta;
  const mapper = createUpdateMapper();
  let mark = await markTranscript(deps, worker);
  const early = await armEarly(deps, worker, input.maxTurns);
  const sent = await sendPrompt(deps, { name, prompt: input.prompt, ...input.guard }, worker).catch(
    async (error: unknown) => {
      await early.undo().catch(() => undefined);
      throw error;
    },
  );
  // A turn is followed again after each answer, from the same mark: the messages mapped are skipped.
  let mapped = 0;
  let modelStopReason: string | null = null;
  let maxTurnsHit: number | null = null;
  let pushing: Promise<void> = Promise.resolve();
  const show = (update: SessionUpdate) => {
    // A client gone mid-turn takes no more updates; the turn still ends (and the face kills the worker).
    pushing = pushing.then(() => client.update(update)).catch(() => undefined);
  };
  const onMessage = (index: { n: number }) => (message: StreamMessage) => {
    if (index.n++ < mapped) return;
    mapped++;
    const stopReason = (message.message as { stop_reason?: unknown } | undefined)?.stop_reason;
    if (message.type === "assistant" && typeof stopReason === "string") modelStopReason = stopReason;
    for (const update of mapper.push(message)) show(update);
  };
  const giveUp = new AbortController();
  let cancelled = false;
  const onCancel = () => {
    cancelled = true;
    void settleCancel(deps, worker, giveUp);
  };
  if (input.cancel.aborted) onCancel();
  else input.cancel.addEventListener("abort", onCancel, { once: true });
  const signal = AbortSignal.any([...(deps.signal ? [deps.signal] : []), giveUp.signal]);
  let preArmed = early.armed;
  /** One attempt's turn, through every permission prompt it shows, to its outcome. */
  const follow = async (
    d: Deps,
    turn: { baseline: number; promptId: string | null },
    timeout: number | undefined,
    guard?: { onProgress: (p: WaitProgress) => void; halt: AbortSignal },
  ): Promise<Outcome> => {
    for (;;) {
      const followed = await followTurn(
        d,
        worker,
        turn,
        mark,
        { maxTurns: input.maxTurns, timeout, preArmed, skipInterruptedDrain: true },
        onMessage({ n: 0 }),
        guard,
      );
      preArmed = false;
      maxTurnsHit = followed.maxTurnsHit;
      await pushing;
      if (followed.outcome.reason !== "input") return followed.outcome;
      await decide(
        deps,
        worker,
        followed.outcome,
        client,
        mapper.pendingCall(),
        () => cancelled,
        input.cancel,
      );
    }
  };
  try {
    const d = { ...deps, signal };
    const guarded = input.guard?.accept !== undefined || input.guard?.jsonSchema !== undefined;
    let outcome: Outcome;
    if (!guarded) outcome = await follow(d, sent, input.timeout);
    else {
      let next = { baseline: sent.baseline, promptId: sent.promptId };
      const runner: TurnRunner = {
        wait: (turn, td, { timeoutMs, onProgress, halt }) =>
          follow(td, turn === next.baseline ? next : { baseline: turn, promptId: null }, timeoutMs, {
            onProgress,
            halt,
          }),
        send: async (text, prepare) => {
          mark = await markTranscript(deps, worker);
          mapped = 0;
          show({ sessionUpdate: "user_message_chunk", content: { type: "text", text } });
          const fed = await deliverTurn(deps, worker, text, prepare, "turn-loop");
          next = { baseline: fed.baseline, promptId: fed.promptId };
          return fed;
        },
      };
      outcome = await runGuard(d, worker, sent.baseline, input.timeout ?? DEFAULT_WAIT_TIMEOUT_MS, runner);
    }
    await pushing;
    const end = decidePromptEnd({
      outcome: giveUp.signal.aborted ? { ...outcome, reason: "aborted" } : outcome,
      maxTurnsHit,
      cancelled,
      modelStopReason,
    });
    return outcome.evidence.structured === undefined
      ? { end }
      : { end, structured: outcome.evidence.structured };
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

/** Presses the interrupt keys, then ends the follow once the TUI is idle again (or the grace is over). */
async function settleCancel(deps: Deps, worker: Worker, giveUp: AbortController): Promise<void> {
  await interrupt(deps, worker);
  const until = deps.clock.now() + CANCEL_GRACE_MS;
  let idleLooks = 0;
  while (!giveUp.signal.aborted && deps.clock.now() < until && idleLooks < 2) {
    await deps.clock.sleep(CANCEL_POLL_MS, giveUp.signal).catch(() => undefined);
    const screen = await deps.tmux.capture(worker.meta.name).catch(() => null);
    const idle = screen !== null && worker.provider.classifyScreen(screen).kind === "ready";
    idleLooks = idle ? idleLooks + 1 : 0;
  }
  giveUp.abort();
}

/** The provider's interrupt keys, as `umbel keys NAME Escape` presses them. */
async function interrupt(deps: Deps, worker: Worker): Promise<void> {
  for (const key of worker.provider.interruptKeys ?? ["Escape"])
    await deps.tmux.sendKeys(worker.meta.name, [key]).catch(() => undefined);
}
