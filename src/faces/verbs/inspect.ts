import { parseWorkerRef } from "../../core/hosts/schema.ts";
import type { HookEvent } from "../../core/providers/types.ts";
import { CaptureInput, KeysInput, LogsInput, LsInput, NameInput, StatusInput } from "../../core/schemas.ts";
import {
  AttachResult,
  CaptureResult,
  KeysResult,
  type LogEntry,
  LogsResult,
} from "../../core/worker/outputs.ts";
import { FleetStatus, StatusOutput, type StatusResult } from "../../core/worker/status.ts";
import { listFleet } from "../../operations/hosts/fleet.ts";
import { attachOnHost, logsOnHost } from "../../operations/hosts/stream.ts";
import { attachWorker } from "../../operations/worker/attach.ts";
import { captureScreen } from "../../operations/worker/capture.ts";
import { sendKeys } from "../../operations/worker/keys.ts";
import { streamLogs } from "../../operations/worker/logs.ts";
import { statusOf } from "../../operations/worker/status.ts";
import { fixedBound, reachHosts } from "./reach.ts";
import { renderEvent, renderFleetTable, renderStatus } from "./render.ts";
import { renderCapture, renderKeys } from "./render-mcp.ts";
import { defineVerb, LOOKS, type VerbContext } from "./verb.ts";

/** The verbs that look at workers (status, ls, capture, logs), keys, which presses, and attach. */

const statusHere = defineVerb({
  name: "status",
  description:
    "Show one worker: idle, busy, needs-input, starting, dead (with its exit) or killed; without NAME, every worker (as ls)",
  input: StatusInput,
  output: StatusOutput,
  run: async ({ name, local }, { deps }): Promise<StatusResult | FleetStatus> =>
    name === undefined ? listFleet(deps, { local }) : statusOf(deps, name),
  text: (r) => ("workers" in r ? renderFleetTable(r) : renderStatus(r)),
  cli: {
    usage: "[NAME]",
    summary: "idle, busy, needs-input, starting, dead or killed; no NAME: every worker",
    positionals: ["name"],
    terminal: (r) => ("workers" in r ? renderFleetTerminal(r) : renderStatus(r)),
    json: (r) => ("workers" in r ? fleetJson(r) : r),
    examples: ["umbel status reviewer", "umbel status --json"],
  },
  mcp: {
    title: "Show a worker, or every worker",
    annotations: LOOKS,
    text: (r) => ("workers" in r ? renderFleet(r) : renderStatus(r)),
  },
});
export const statusVerb = reachHosts(statusHere, { by: "name", boundMs: fixedBound });

export const lsVerb = defineVerb({
  name: "ls",
  description:
    "List the workers of this state root and of every host of config.toml (HOST:NAME; each host asked at once, bounded to 10s; one that does not answer is an unreachable entry with its reason); --local: this machine's only",
  input: LsInput,
  output: FleetStatus,
  run: (input, { deps }) => listFleet(deps, input),
  text: renderFleetTable,
  cli: {
    usage: "",
    summary: "list workers",
    // Through a pipe no workers is no output (`[ -z "$(umbel ls)" ]`); a person gets a line.
    terminal: renderFleetTerminal,
    json: fleetJson,
    examples: ["umbel ls", "umbel ls --json"],
  },
  mcp: { title: "List workers", annotations: LOOKS, text: renderFleet },
});

const captureHere = defineVerb({
  name: "capture",
  description: "Print the worker's screen (the last one recorded, for a dead or killed worker)",
  input: CaptureInput,
  output: CaptureResult,
  run: (input, { deps }) => captureScreen(deps, input),
  text: (r) => (r.screen.endsWith("\n") ? r.screen : `${r.screen}\n`),
  cli: {
    usage: "NAME",
    summary: "print the worker's screen",
    positionals: ["name"],
    examples: ["umbel capture reviewer", "umbel capture reviewer --lines 200"],
  },
  mcp: { title: "Show a worker's screen", annotations: LOOKS, text: renderCapture },
});
export const captureVerb = reachHosts(captureHere, { by: "name", boundMs: fixedBound });

const logsHere = defineVerb({
  name: "logs",
  description:
    "Print the worker's hook events; -f follows them (HOST:NAME: the host's, each as it comes over ssh)",
  input: LogsInput,
  output: LogsResult,
  run: async (input, { deps, progress }: VerbContext<HookEvent>) => {
    const events: LogEntry[] = [];
    const ref = parseWorkerRef(input.name);
    if (ref.host !== null)
      await logsOnHost(deps, { host: ref.host, name: ref.name, follow: input.follow }, (entry) => {
        events.push(entry);
        progress?.({ index: entry.index, name: entry.event, payload: entry.payload });
      });
    else
      await streamLogs(deps, input, (event) => {
        events.push(logEntry(event));
        progress?.(event);
      });
    return { name: input.name, events };
  },
  text: renderLogs,
  cli: {
    usage: "NAME",
    summary: "print the worker's hook events (-f to follow)",
    positionals: ["name"],
    aliases: { follow: "f" },
    examples: ["umbel logs reviewer -f", "umbel logs box:reviewer -f"],
    // Printed as they come, so `logs -f` streams.
    stream: { text: renderEvent, json: logEntry },
  },
  mcp: {
    title: "Show a worker's events",
    annotations: LOOKS,
    text: (r) => renderLogs(r) || "no events",
    // With follow, one notification per event: the call may last as long as the worker.
    progress: (report, input) => {
      if (!input.follow || !report) return undefined;
      let seen = 0;
      return (event) => report({ progress: ++seen, message: renderEvent(event).trim() });
    },
  },
});
// Its events come through as the host prints them (operations/hosts/stream.ts), not in one answer.
export const logsVerb = reachHosts(logsHere, { by: "self" });

const keysHere = defineVerb({
  name: "keys",
  description: "Press keys in the worker (Escape interrupts a turn; for a prompt, answer chooses by meaning)",
  input: KeysInput,
  output: KeysResult,
  run: (input, { deps }) => sendKeys(deps, input),
  text: () => "",
  cli: {
    usage: "NAME K..",
    summary: "press keys (Escape interrupts; a prompt: see answer)",
    positionals: ["name", "keys"],
    examples: ["umbel keys reviewer 1", "umbel keys reviewer Escape"],
  },
  mcp: {
    title: "Press keys in a worker",
    // "1" on a permission prompt lets the worker run the command it asked about.
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    text: renderKeys,
  },
});
export const keysVerb = reachHosts(keysHere, { by: "name", boundMs: fixedBound });

const attachHere = defineVerb({
  name: "attach",
  description:
    "Attach your terminal to the worker's pane (detach with C-b d); HOST:NAME: the host's pane, through ssh -t",
  input: NameInput,
  output: AttachResult,
  run: async ({ name }, { deps, terminal }) => {
    const ref = parseWorkerRef(name);
    const exitCode =
      ref.host === null
        ? await attachWorker(deps, name, terminal)
        : await attachOnHost(deps, { host: ref.host, name: ref.name, terminal });
    return { name, exitCode };
  },
  text: () => "",
  exitCode: (r) => r.exitCode,
  // The terminal was the output; there is nothing to print after it.
  cli: {
    usage: "NAME",
    summary: "attach your terminal to the worker",
    positionals: ["name"],
    examples: ["umbel attach reviewer", "umbel attach box:reviewer"],
    json: () => undefined,
  },
  mcp: false,
});
// The host's pane on this terminal through ssh -t (operations/hosts/stream.ts).
export const attachVerb = reachHosts(attachHere, { by: "self" });

/** `ls --json`: the workers, then one entry per host that gave none (state unreachable or host-error). */
function fleetJson(r: FleetStatus): unknown[] {
  return [...r.workers, ...(r.unreachable ?? [])];
}

function renderFleet(r: FleetStatus): string {
  return renderFleetTable(r) || "no workers";
}

function renderFleetTerminal(r: FleetStatus): string {
  return renderFleetTable(r) || "no workers\n";
}

function renderLogs(r: LogsResult): string {
  return r.events.map((e) => renderEvent({ index: e.index, name: e.event, payload: e.payload })).join("");
}

function logEntry(event: HookEvent): LogEntry {
  return { index: event.index, event: event.name, payload: { ...event.payload } };
}
