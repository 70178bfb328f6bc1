import { UsageError } from "../../core/errors.ts";
import { DRAIN_HOOK_COMMAND } from "../../core/fleet/drain.ts";
import type { Deps } from "../../core/ports.ts";
import { drainOnTurnEnd } from "../../operations/fleet/queue.ts";

/**
 * `umbel __drain NAME`, run detached by a worker's end-of-turn hook (hooks/hook.sh, drain.cmd): sends
 * the worker's next queued prompt if it is idle, and says so on one line (the hook keeps it in
 * drain.log); nothing when there was nothing to send.
 */
export async function runDrainHook(
  args: readonly string[],
  io: { deps: Deps; out: (text: string) => void },
): Promise<number> {
  const [name] = args;
  if (name === undefined || args.length !== 1)
    throw new UsageError(`usage: umbel ${DRAIN_HOOK_COMMAND} NAME`, { args });
  const sent = await drainOnTurnEnd(io.deps, name);
  if (sent) io.out(`sent ${sent.id} (baseline ${sent.baseline})\n`);
  return 0;
}
