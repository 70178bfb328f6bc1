import type { GuardedSendInput } from "../../core/guard/fields.ts";
import type { Deps } from "../../core/ports.ts";
import type { KillInput, ProviderId, ReadInput, WaitInput } from "../../core/schemas.ts";
import type { SpawnInput } from "../../core/spawn/input.ts";
import type { Outcome } from "../../core/wait/outcome.ts";
import type { SpawnResult } from "../../core/worker/outputs.ts";
import type { SessionSeen } from "../../core/workflow/resume.ts";

/** A spawn as a workflow worker asks it: its provider may be left to the machine it runs on. */
export type SpawnRequest = Omit<SpawnInput, "provider"> & { provider?: ProviderId | undefined };

/**
 * What a workflow does to a worker, on whichever machine it runs: this one's operations
 * (local-verbs.ts), or a host's umbel over ssh (host-verbs.ts). Names are the worker's on its
 * machine; what comes back names it as the run records it (HOST:NAME for a host's). The step and
 * pool code is one path over either; workers.ts verbsOf picks them per session.
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

/** The name a run records for worker `name` on `host` (none: this machine). */
export function recordedName(host: string | undefined, name: string): string {
  return host === undefined ? name : `${host}:${name}`;
}
