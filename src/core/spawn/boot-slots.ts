import { UsageError } from "../errors.ts";

/**
 * How many workers of one provider may be starting at once, across every umbel process of a state
 * root (UMBEL_MAX_STARTING): 30 spawns at once then boot in waves instead of starving a 2-core
 * machine (or a shared OAuth refresh) so that every one of them times out. Measured on 2 cores
 * (bench/measure/boot-waves.ts, docs/performance.md): 2 at a time finished 8 claude spawns as soon
 * as no cap did, and each spawn's own start stayed near a lone one's.
 */
export const DEFAULT_MAX_STARTING = 2;

/** The cap: unset or empty is the default, 0 is no cap; anything else but a whole number is refused. */
export function parseMaxStarting(value: string | undefined): number | null {
  if (value === undefined || value.trim() === "") return DEFAULT_MAX_STARTING;
  if (!/^\d+$/.test(value.trim()))
    throw new UsageError(
      `UMBEL_MAX_STARTING must be a whole number (0: no cap), not ${JSON.stringify(value.slice(0, 40))}`,
      { env: "UMBEL_MAX_STARTING" },
    );
  const max = Number(value.trim());
  return max === 0 ? null : max;
}
