import { type AccountWindows, sawLimit, sawWindows } from "../../core/accounts/placement.ts";
import type { Telemetry } from "../../core/limits/telemetry.ts";
import type { Deps } from "../../core/ports.ts";
import type { Outcome } from "../../core/wait/outcome.ts";
import type { Meta } from "../../core/worker/meta.ts";

/**
 * Each account's record (core/accounts/placement.ts) kept fresh from what umbel reads anyway: the
 * windows in a worker's telemetry (status, ls, wait's outcome, -p's result: limits/telemetry.ts
 * calls noteWindows) and a usage limit a turn ended at (wait/wait.ts calls noteLimit). A record
 * umbel cannot write never fails the verb that read it: a trace mark says so.
 */

/** The caller's own budgets (window max-tokens / max-budget-usd): never the account's limit. */
const BUDGETS: ReadonlySet<string> = new Set(["max-tokens", "max-budget-usd"]);

export async function noteWindows(
  deps: Deps,
  meta: Pick<Meta, "name" | "provider" | "account">,
  telemetry: Pick<Telemetry, "windows"> | null,
): Promise<void> {
  if (!telemetry || telemetry.windows.length === 0) return;
  const seen = { windows: telemetry.windows, at: isoNow(deps), worker: meta.name };
  await update(deps, meta, (known) => sawWindows(known, seen));
}

export async function noteLimit(
  deps: Deps,
  meta: Pick<Meta, "name" | "provider" | "account">,
  outcome: Pick<Outcome, "reason" | "evidence">,
): Promise<void> {
  const { limit, budget } = outcome.evidence;
  if (outcome.reason !== "limited" || !limit || budget || BUDGETS.has(limit.window ?? "")) return;
  const seen = { limit, at: isoNow(deps), worker: meta.name };
  await update(deps, meta, (known) => sawLimit(known, seen));
}

async function update(
  deps: Deps,
  meta: Pick<Meta, "name" | "provider" | "account">,
  change: (known: AccountWindows) => AccountWindows,
): Promise<void> {
  const account = meta.account ?? null;
  try {
    await deps.store.updateAccountWindows(meta.provider, account, change);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    deps.trace.mark(`accounts: ${account ?? `${meta.provider} default`}'s record not written (${why})`);
  }
}

function isoNow(deps: Deps): string {
  return new Date(deps.clock.now()).toISOString();
}
