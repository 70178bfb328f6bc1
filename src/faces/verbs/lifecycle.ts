import { boundText } from "../../core/common/bound-text.ts";
import { SendOutput } from "../../core/fleet/queue.ts";
import { WaitManyInput, WaitResult } from "../../core/fleet/wait-many.ts";
import { GuardedSendInput } from "../../core/guard/fields.ts";
import { EmptyInput, KillInput } from "../../core/schemas.ts";
import { SpawnInput } from "../../core/spawn/input.ts";
import type { Outcome } from "../../core/wait/outcome.ts";
import { KillResult, PruneResult, SpawnResult } from "../../core/worker/outputs.ts";
import { sendOrQueue } from "../../operations/fleet/queue.ts";
import { waitForTurns } from "../../operations/fleet/wait-many.ts";
import type { GuardProgress } from "../../operations/guard/guard.ts";
import { spawnOrClaim } from "../../operations/pool/claim.ts";
import { DEFAULT_START_TIMEOUT_MS } from "../../operations/spawn/prepare.ts";
import { DEFAULT_WAIT_TIMEOUT_MS } from "../../operations/wait/wait.ts";
import { killWorker, pruneWorkers } from "../../operations/worker/kill.ts";
import { withDefaultProvider } from "../../operations/worker/user-config.ts";
import { waitProgress } from "../mcp/progress.ts";
import { fixedBound, reachHosts } from "./reach.ts";
import { renderPrune, renderSend, renderSpawn, renderSpawnNotes, renderSpawnTerminal } from "./render-mcp.ts";
import { renderWaitResult, renderWaitResultMcp } from "./render-wait.ts";
import { defineVerb, type VerbContext } from "./verb.ts";

/** A worker's life: spawn → send → wait → read (read.ts) → kill, and prune. */

/** evidence.message is the whole last message; umbel_wait keeps only its start. */
const EVIDENCE_MESSAGE_CHARS = 2000;

/** spawn --help's word on trust (docs/cli-reference.md#spawn-name says the same, per CLI). */
const SPAWN_TRUST =
  "Trust: a CLI that asks whether to trust the folder (claude's trust dialog, which defaults to \"No, exit\") is answered Yes, as you would, and the CLI keeps that answer: claude records it in its .claude.json (~/.claude.json or $CLAUDE_CONFIG_DIR/.claude.json), so your own claude trusts the folder from then on. Each dialog umbel answers is printed on stderr and listed in the result's dialogs. / and your home directory are never trusted for you. codex and gemini workers trust the folder through umbel's own config home, for the worker only; opencode asks nothing. umbel -p and the warm pool's spares trust for their own session only and leave nothing behind.";

const spawnHere = defineVerb({
  name: "spawn",
  description: "Start a worker (an agent CLI in its own tmux session) and return when it is ready",
  input: SpawnInput,
  output: SpawnResult,
  // A matching spare of the warm pool is claimed when there is one (ready at once). No provider
  // given: UMBEL_PROVIDER, else config.toml's, else claude (for the CLI and MCP alike).
  run: async (input, { deps }) => spawnOrClaim(deps, await withDefaultProvider(deps, input)),
  // A script's `$(umbel spawn …)` gets the name; a person, what happened and what to do next.
  text: (r) => `${r.name}\n`,
  cli: {
    usage: "NAME",
    summary: "start a worker and return when its TUI is ready",
    positionals: ["name"],
    terminal: renderSpawnTerminal,
    // Each dialog answered is one stderr line, with or without --json (whose `dialogs` says the same).
    notes: renderSpawnNotes,
    details: SPAWN_TRUST,
    examples: [
      "umbel spawn reviewer --cwd ./repo --model sonnet",
      "umbel spawn fixer --provider codex --unattended --env GITHUB_TOKEN",
    ],
  },
  mcp: {
    title: "Start a worker",
    // A new worker is additive (nothing existing changes); it runs an agent that talks to its API.
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    text: renderSpawn,
  },
});
export const spawnVerb = reachHosts(spawnHere, {
  by: "host-flag",
  boundMs: (input) => Number(input.startTimeout ?? DEFAULT_START_TIMEOUT_MS),
});

const sendHere = defineVerb({
  name: "send",
  description:
    "Send a prompt (argument, or stdin with - or when piped) and prove the worker took it; --queue: queue it for a busy worker; --json-schema and --accept put guardrails on its turn, enforced by wait",
  input: GuardedSendInput,
  output: SendOutput,
  run: (input, { deps }) => sendOrQueue(deps, input),
  text: (r) =>
    r.baseline === null
      ? `queued ${r.queued?.id ?? ""} (${r.queued?.position ?? 0} ahead)\n`
      : `${r.baseline}\n`,
  cli: {
    usage: "NAME P",
    summary:
      "send a prompt (or stdin), prove delivery, print the baseline (--json-schema, --accept: guardrails)",
    positionals: ["name", "prompt"],
    stdin: "prompt",
    examples: ['umbel send reviewer "review the diff in HEAD~1"', "umbel send reviewer - < prompt.md"],
  },
  mcp: {
    title: "Send a prompt",
    // The worker acts on the prompt: with its tools it may change files, so this is not read-only.
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    text: renderSend,
  },
});
export const sendVerb = reachHosts(sendHere, { by: "name", boundMs: fixedBound });

const waitHere = defineVerb({
  name: "wait",
  description:
    "Wait for the turn to end, enforcing its guardrails; exit code = outcome (0 stop, 120 limited, 121 rejected, 122 provider-error, 123 idle, 124 timeout, 125 dead, 126 input, 130 aborted); --any A B C: the first of several to end, --all: every one",
  input: WaitManyInput,
  output: WaitResult,
  run: (input, { deps, progress }: VerbContext<GuardProgress>) => waitForTurns(deps, input, progress),
  text: renderWaitResult,
  exitCode: (outcome) => outcome.exitCode,
  cli: {
    usage: "NAME | --any|--all NAME..",
    summary:
      "wait for the turn to end, enforcing its guardrails (--any/--all: several workers); the exit code is the outcome",
    positionals: ["name", "names"],
    examples: [
      'umbel wait reviewer --after "$b"; echo "outcome: $?"',
      "umbel wait --any reviewer fixer --timeout 10m",
    ],
  },
  mcp: {
    title: "Wait for the turn to end",
    // A guarded turn's feedback makes the worker act again, and its accept checks run: not a look.
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
    present: (r) => ({
      ...shortenEvidence(r),
      ...(r.outcomes ? { outcomes: r.outcomes.map(shortenEvidence) } : {}),
    }),
    text: renderWaitResultMcp,
    progress: (report, input) => waitProgress(report, input.timeout ?? DEFAULT_WAIT_TIMEOUT_MS),
  },
});
// One remote wait per HOST:NAME (operations/hosts/wait.ts), beside the local ones, retried across a dropped link.
export const waitVerb = reachHosts(waitHere, { by: "self" });

const killHere = defineVerb({
  name: "kill",
  description: "Stop a worker, keeping a tombstone (capture, read and logs still answer); --purge removes it",
  input: KillInput,
  output: KillResult,
  run: (input, { deps }) => killWorker(deps, input),
  text: (r) =>
    `${r.state} ${r.name}\n${r.broken ? `it was broken: ${r.broken.reason}\n` : ""}${r.worktree ? `${r.worktree.note}\n` : ""}`,
  cli: {
    usage: "NAME",
    summary: "stop a worker (tombstone kept; --purge removes it)",
    positionals: ["name"],
    examples: ["umbel kill reviewer", "umbel kill reviewer --purge"],
    // A full disk: the worker is stopped, but its tombstone may lack its screen or its killed mark.
    notes: (r) =>
      (r.unrecorded ?? [])
        .map((u) => `umbel: ${r.name} was stopped, but its ${u.file} was not written: ${u.error}\n`)
        .join(""),
  },
  mcp: {
    title: "Stop a worker",
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    text: (r) =>
      `${r.state} ${r.name}${r.broken ? `; it was broken: ${r.broken.reason}` : ""}${r.worktree ? `; ${r.worktree.note}` : ""}${(r.unrecorded ?? []).map((u) => `; ${u.file} not written: ${u.error}`).join("")}`,
  },
});
export const killVerb = reachHosts(killHere, { by: "name", boundMs: fixedBound });

export const pruneVerb = defineVerb({
  name: "prune",
  description:
    "Remove every dead, killed, failed or orphaned worker (an orphan is an anonymous -p's whose -p is gone), and every broken one no live tmux session runs (never a live one)",
  input: EmptyInput,
  output: PruneResult,
  run: (_input, { deps }) => pruneWorkers(deps),
  text: (r) =>
    r.removed.map((n) => `removed ${n}\n`).join("") +
    (r.worktrees ?? []).map((w) => `${w.name}: ${w.note}\n`).join("") +
    (r.broken ?? [])
      .filter((b) => !b.removed)
      .map((b) => `kept ${b.name}: broken beside a live tmux session: ${b.reason}\n  fix: ${b.fix}\n`)
      .join(""),
  cli: {
    usage: "",
    summary: "remove dead, killed, failed, orphaned and broken workers",
    examples: ["umbel prune"],
  },
  mcp: {
    title: "Remove dead workers",
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    text: renderPrune,
  },
});

function shortenEvidence<T extends Outcome>(outcome: T): T {
  const message = outcome.evidence.message;
  if (typeof message !== "string") return outcome;
  const bounded = boundText(message, { maxChars: EVIDENCE_MESSAGE_CHARS });
  if (!bounded.report.truncated) return outcome;
  return { ...outcome, evidence: { ...outcome.evidence, message: bounded.text, messageTruncated: true } };
}
