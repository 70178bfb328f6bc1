import type { WaitResult } from "../../core/fleet/wait-many.ts";
import type { Outcome } from "../../core/wait/outcome.ts";
import { renderOutcome } from "./render.ts";
import { renderWait } from "./render-mcp.ts";

/** wait's text: one outcome as before; with any/all each worker's, named, and who is still running. */

export function renderWaitResult(r: WaitResult): string {
  if (!r.outcomes) return renderOutcome(r);
  const blocks = r.outcomes.map((o) => `${o.name}: ${renderOutcome(o)}`);
  const pending = r.pending?.length ? `still running: ${r.pending.join(", ")}\n` : "";
  return `${blocks.join("")}${pending}`;
}

/** umbel_wait's text: the deciding outcome with its next step, then the others in one line each. */
export function renderWaitResultMcp(r: WaitResult): string {
  if (!r.outcomes) return renderWait(r);
  const others = r.outcomes.filter((o) => o.name !== r.name).map((o) => `${o.name}: ${summary(o)}`);
  const pending = r.pending?.length ? [`still running (not waited for): ${r.pending.join(", ")}`] : [];
  return [`${r.name}: ${renderWait(r)}`, ...others, ...pending].join("\n");
}

function summary(o: Outcome): string {
  return `${o.reason} (exit ${o.exitCode}, baseline ${o.baseline})`;
}
