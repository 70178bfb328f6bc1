import { parseWorkerRef } from "../../core/hosts/schema.ts";
import type { GuardedSendInput } from "../../core/guard/fields.ts";
import type { Deps } from "../../core/ports.ts";
import type { KillInput, ProviderId, ReadInput, SpawnInput, WaitInput } from "../../core/schemas.ts";
import type { Outcome } from "../../core/wait/outcome.ts";
import { findSessionId, lastSubmitIndex } from "../../core/wait/turn.ts";
import type { SpawnResult } from "../../core/worker/outputs.ts";
import type { SessionSeen } from "../../core/workflow/resume.ts";
import { waitGuarded } from "../guard/guard.ts";
import { spawnWorker } from "../spawn/spawn.ts";
import { killWorker } from "../worker/kill.ts";
import { readAnswer } from "../worker/read.ts";
import { sendPrompt } from "../worker/send.ts";
import { checkLiveness, loadWorker, readEvents } from "../worker/worker.ts";
import { hostVerbs } from "./host-verbs.ts";

/** A spawn as a workflow worker asks it: its provider may be left to the machine it runs on. */
export type SpawnRequest = Omit<SpawnInput, "provider"> & { provider?: ProviderId | undefined };

/**
 * What a workflow does to a worker, on whichever machine it runs: this one's operations, or a host's
 * umbel over ssh (host-verbs.ts). Names are the worker's on its machine; what comes back names it
 * as the run records it (HOST:NAME for a host's). The step and pool code is one path over either.
 */
export type WorkerVerbs = {
  /** `defaultProvider`: this machine's, for a worker that names none (a host resolves its own). */
  spawn(deps: Deps, input: SpawnRequest, defaultProvider: ProviderId): Promise<SpawnResult>;
  send(deps: Deps, input: GuardedSendInput): Promise<{ baseline: number }>;
  /** The turn's outcome through the guardrails its send recorded (enforced where the worker runs). */
  wait(deps: Deps, input: WaitInput): Promise<Outcome>;
  read(deps: Deps, input: ReadInput): Promise<{ text: string; structured?: unknown }>;
  kill(deps: Deps, input: KillInput): Promise<unknown>;
  /** The session as a resume finds it (`recorded`: its name in the run). */
  see(deps: Deps, name: string, recorded: string): Promise<SessionSeen>;
};

/** A session as the run records it (`rev-…-1`, `box:rev-…-1`) → the verbs of its machine, and its name there. */
export function verbsOf(session: string): { verbs: WorkerVerbs; name: string } {
  const ref = parseWorkerRef(session);
  return { verbs: ref.host === null ? localVerbs : hostVerbs(ref.host), name: ref.name };
}

/** The name a run records for worker `name` on `host` (none: this machine). */
export function recordedName(host: string | undefined, name: string): string {
  return host === undefined ? name : `${host}:${name}`;
}

export const localVerbs: WorkerVerbs = {
  spawn: (deps, input, defaultProvider) =>
    spawnWorker(deps, { ...input, provider: input.provider ?? defaultProvider }),
  send: (deps, input) => sendPrompt(deps, input),
  wait: (deps, input) => waitGuarded(deps, input),
  read: (deps, input) => readAnswer(deps, input),
  kill: (deps, input) => killWorker(deps, input),
  see: seeLocal,
};

async function seeLocal(deps: Deps, name: string): Promise<SessionSeen> {
  const worker = await loadWorker(deps, name).catch(() => null);
  if (!worker) return { name, alive: false, providerSession: null, tookPrompt: false };
  const [live, events] = await Promise.all([
    checkLiveness(deps, worker).catch(() => ({ alive: false })),
    readEvents(deps, worker.provider, name).catch(() => []),
  ]);
  const { provider } = worker;
  return {
    name,
    alive: live.alive,
    providerSession: findSessionId(provider, events),
    tookPrompt: lastSubmitIndex(provider, events) !== null,
    ...(provider.conversationsPerWorker
      ? { unresumable: `${provider.displayName} keeps its conversations in each worker's own home` }
      : {}),
  };
}
