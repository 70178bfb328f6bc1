import type { Deps } from "../../core/ports.ts";
import type { CaptureInput } from "../../core/schemas.ts";
import type { CaptureResult } from "../../core/worker/outputs.ts";
import { dropTrailingBlankLines } from "../../core/worker/screen.ts";
import { loadWorker } from "./worker.ts";

/**
 * The pane as it is now; for a dead pane its last screen; for a killed worker the recorded one.
 * The blank lines below the last text go unless `keepBlank`: a 50-line pane with a short
 * conversation was mostly empty lines.
 */
export async function captureScreen(deps: Deps, input: CaptureInput): Promise<CaptureResult> {
  const result = await captureWhole(deps, input);
  return input.keepBlank ? result : { ...result, screen: dropTrailingBlankLines(result.screen) };
}

async function captureWhole(deps: Deps, input: CaptureInput): Promise<CaptureResult> {
  const worker = await loadWorker(deps, input.name);
  if (worker.meta.state !== "killed") {
    const pane = await deps.tmux.paneInfo(input.name);
    const screen = pane
      ? await deps.tmux.capture(input.name, { lines: input.lines, escapes: input.escapes })
      : null;
    if (screen !== null) return { name: input.name, screen, source: pane?.dead ? "dead-pane" : "live" };
  }
  const recorded = await deps.store.readLastScreen(input.name);
  return { name: input.name, screen: recorded ?? "", source: recorded === null ? "none" : "tombstone" };
}
