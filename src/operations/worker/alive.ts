import type { Deps } from "../../core/ports.ts";
import type { Owner } from "../../core/worker/owner.ts";

/** The process ended, or its pid now names another one (pids are reused). */
export async function isGone(deps: Deps, owner: Owner): Promise<boolean> {
  const start = await deps.system.processStart(owner.pid);
  return start === null || start !== owner.start;
}

/** This process as an owner or claimer, or null where a process's start cannot be read. */
export async function thisProcess(deps: Deps): Promise<Owner | null> {
  const start = await deps.system.processStart(deps.pid);
  return start === null ? null : { pid: deps.pid, start };
}
