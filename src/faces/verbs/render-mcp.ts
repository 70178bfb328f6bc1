import type { BoundReport } from "../../core/common/bound-text.ts";
import type { SendOutput } from "../../core/fleet/queue.ts";
import type { OutcomeReason } from "../../core/schemas.ts";
import type { Outcome } from "../../core/wait/outcome.ts";
import type {
  CaptureResult,
  KeysResult,
  PruneResult,
  ReadResult,
  SpawnResult,
} from "../../core/worker/outputs.ts";
import { renderOutcome } from "./render.ts";
import { describeDialog, renderDialogNotes } from "./render-dialogs.ts";

/**
 * Pure renderers: the readable text beside each MCP tool's structured content. They reuse the CLI's
 * renderers where the CLI prints the same thing, and add the next step a caller usually takes.
 */

export function renderSpawn(r: SpawnResult): string {
  // Every dialog answered, as the CLI's stderr says it: trust is never given silently.
  const dialogs = r.dialogs.map((d) => ` umbel ${describeDialog(r.provider, d)}.`).join("");
  const placed = r.placement ? ` Placed by account auto: ${r.placement.reason}.` : "";
  return `${spawned(r, "")}${placed}${dialogs} Next: umbel_send {name: "${r.name}", prompt}.`;
}

/** spawn's stderr: how --account auto chose the account, then each dialog answered. */
export function renderSpawnNotes(r: SpawnResult): string {
  const placed = r.placement ? `umbel: ${r.name}: placed by --account auto: ${r.placement.reason}\n` : "";
  return placed + renderDialogNotes(r);
}

/**
 * `umbel spawn` on a terminal: the same line, with the CLI's next step; the dialogs are named only,
 * since their stderr lines (renderDialogNotes) say what was answered.
 */
export function renderSpawnTerminal(r: SpawnResult): string {
  const dialogs = r.dialogsAnswered.length ? `; answered: ${r.dialogsAnswered.join(", ")}` : "";
  return `${spawned(r, dialogs)} Next: umbel send ${r.name} "PROMPT"\n`;
}

function spawned(r: SpawnResult, dialogs: string): string {
  return `${r.name} is ready (${r.provider} in ${r.cwd}, ${seconds(r.elapsedMs)}${dialogs}).`;
}

export function renderSend(r: SendOutput): string {
  if (r.baseline === null)
    return `${r.name} is busy: the prompt is queued as ${r.queued?.id} (${r.queued?.position ?? 0} ahead); it is sent once the worker is idle. Next: umbel_wait {name: "${r.name}"}, whose outcome names the queued prompt it sent (\`next\`), or umbel_status for its baseline.`;
  return `${r.name} took the prompt; baseline ${r.baseline}. Next: umbel_wait {name: "${r.name}", after: ${r.baseline}}.`;
}

const NEXT: Record<OutcomeReason, (o: Outcome) => string> = {
  stop: (o) => `umbel_read {name: "${o.name}", after: ${o.baseline}}`,
  rejected: (o) =>
    `the guardrails never held (evidence.attempts has every check's output); umbel_send {name: "${o.name}", prompt} to try again, or umbel_read {name: "${o.name}", after: ${o.baseline}} for the last answer`,
  input: (o) =>
    `the worker is asking (see screen). umbel_answer {name: "${o.name}", choice: "allow"${o.evidence.inputId ? `, inputId: "${o.evidence.inputId}"` : ""}} approves (or "always", "deny", an option), then umbel_wait {name: "${o.name}", after: ${o.baseline}}; umbel_keys {name: "${o.name}", keys: ["1"]} presses keys yourself`,
  "provider-error": (o) =>
    `umbel_read {name: "${o.name}"} returns the error text; send the prompt again to retry`,
  idle: (o) =>
    `the turn has not ended; umbel_capture {name: "${o.name}"} to look, umbel_keys ["Escape"] to interrupt`,
  timeout: (o) =>
    `the turn is still running; umbel_wait {name: "${o.name}", after: ${o.baseline}} again to keep waiting`,
  dead: (o) =>
    `the worker exited; umbel_logs / umbel_capture to see why, umbel_kill {name: "${o.name}", purge: true} to free the name`,
  aborted: () => "the wait was cancelled; the worker was not touched",
  limited: (o) => {
    const at = o.evidence.limit?.resetsAt;
    if (o.evidence.budget)
      return `the turn was stopped at its budget and the worker is usable; umbel_send {name: "${o.name}", prompt} to go on`;
    // --on-limit failover found no account of the provider with headroom.
    if (o.evidence.earliestReset !== undefined)
      return o.evidence.earliestReset
        ? `no account of this provider has headroom; the earliest reset is ${o.evidence.earliestReset}: send after that, or spawn on another provider`
        : `no account of this provider has headroom and none gave a reset time; try again later, or spawn on another provider`;
    return at
      ? `the subscription's ${o.evidence.limit?.window ?? "usage"} limit resets at ${at}; send after that (or spawn with onLimit: "continue" to wait through it), or use another worker`
      : `the subscription's usage limit gave no reset time; try again later, or use another worker`;
  },
};

export function renderWait(o: Outcome): string {
  return `${renderOutcome(o)}Next: ${NEXT[o.reason](o)}.`;
}

export function renderRead(r: ReadResult & { bound: BoundReport }): string {
  const notes: string[] = [];
  if (r.isError) notes.push("the turn ended in a provider error; the text is the error");
  if (r.empty) notes.push("the turn ended without any assistant text");
  if (r.turn === "running") notes.push("the turn is still running: umbel_wait first");
  if (r.turn === "input") notes.push("the turn is waiting for a permission answer: see umbel_wait");
  if (r.turn === "none") notes.push("no turn has been sent");
  if (r.bound.note) notes.push(r.bound.note);
  return [r.text, ...notes.map((n) => `[umbel: ${n}]`)].filter((part) => part !== "").join("\n");
}

export function renderPrune(r: PruneResult): string {
  const removed = r.removed.length ? `removed ${r.removed.join(", ")}` : "removed nothing";
  const trees = (r.worktrees ?? []).map((w) => `; ${w.name}: ${w.note}`).join("");
  const kept = `${r.kept.length ? `${removed}; kept ${r.kept.join(", ")}` : removed}${trees}`;
  const broken = (r.broken ?? []).filter((b) => !b.removed);
  return broken.length
    ? `${kept}; broken beside a live tmux session: ${broken.map((b) => `${b.name} (${b.fix})`).join("; ")}`
    : kept;
}

const SCREEN_SOURCE = {
  live: "",
  "dead-pane": "[the worker has exited; this is its last screen]\n",
  tombstone: "[the worker was killed; this is the screen recorded then]\n",
  none: "[no screen: the worker is gone and none was recorded]",
} as const;

export function renderCapture(r: CaptureResult): string {
  return `${SCREEN_SOURCE[r.source]}${r.screen}`;
}

export function renderKeys(r: KeysResult): string {
  return `pressed ${r.sent.join(" ")} in ${r.name}`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}
