import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { ServerNotification, ServerRequest } from "@modelcontextprotocol/sdk/types.js";
import { formatDuration } from "../../core/common/duration.ts";
import type { GuardProgress } from "../../operations/guard/guard.ts";

export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;
type ProgressUpdate = { progress: number; total?: number; message: string };
export type Report = (update: ProgressUpdate) => void;

/**
 * `notifications/progress` for this request, or undefined when the client sent no progressToken
 * (the spec allows progress only then). `progress` must grow, so a repeat of the last value is
 * dropped; a notification that fails to send never fails the tool.
 */
export function progressReporter(extra: Extra): Report | undefined {
  const token = extra._meta?.progressToken;
  if (token === undefined) return undefined;
  let last = Number.NEGATIVE_INFINITY;
  return ({ progress, total, message }) => {
    if (progress <= last) return;
    last = progress;
    const params = { progressToken: token, progress, message, ...(total === undefined ? {} : { total }) };
    extra.sendNotification({ method: "notifications/progress", params }).catch(() => undefined);
  };
}

/** One update a second is plenty for a person watching; a change of turn state goes out at once. */
const WAIT_PROGRESS_EVERY_MS = 1000;

const TURN_LABEL: Record<GuardProgress["turn"], string> = {
  none: "waiting for the turn to start",
  running: "busy",
  input: "needs input",
  stop: "stopped",
  failure: "failed",
};

const PHASE_LABEL: Record<NonNullable<GuardProgress["phase"]>, string> = {
  turn: "",
  checking: "checking",
  feedback: "sending feedback",
  done: "done",
};

/**
 * wait's onProgress as progress notifications: elapsed ms of the timeout, and the turn state; a
 * guarded turn says which attempt and what umbel is doing (`attempt 2/3 · checking · …`).
 */
export function waitProgress(
  report: Report | undefined,
  timeoutMs: number,
): ((p: GuardProgress) => void) | undefined {
  if (!report) return undefined;
  let sentAt = Number.NEGATIVE_INFINITY;
  let sent: string | null = null;
  return ({ elapsedMs, turn, limited, failingOver, attempt, maxAttempts, phase }) => {
    // Waiting through a usage limit (--on-limit continue), or moving off one (failover), is a phase of its own.
    const what =
      phase && phase !== "turn"
        ? PHASE_LABEL[phase]
        : limited
          ? limitedLabel(limited, failingOver === true)
          : TURN_LABEL[turn];
    const state = attempt === undefined ? what : `attempt ${attempt}/${maxAttempts} · ${what}`;
    if (state === sent && elapsedMs - sentAt < WAIT_PROGRESS_EVERY_MS) return;
    sentAt = elapsedMs;
    sent = state;
    report({
      progress: elapsedMs,
      total: timeoutMs,
      message: `${state} · ${formatDuration(elapsedMs)} of ${formatDuration(timeoutMs)}`,
    });
  };
}

function limitedLabel(limit: NonNullable<GuardProgress["limited"]>, failingOver: boolean): string {
  const window = limit.window ? ` (${limit.window})` : "";
  if (failingOver) return `limited${window}, moving to another account`;
  return `limited${window}, waiting for the reset${limit.resetsAt ? ` at ${limit.resetsAt}` : ""}`;
}
