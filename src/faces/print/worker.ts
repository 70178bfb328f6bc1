import { isAbsolute, resolve } from "node:path";
import { UsageError, WorkerNotFoundError } from "../../core/errors.ts";
import type { Deps } from "../../core/ports.ts";
import { LAUNCH_FLAGS, type PrintInput, spawnOfPrint } from "../../core/print/input.ts";
import { isSessionId } from "../../core/providers/registry.ts";
import { WorkerName } from "../../core/schemas.ts";
import type { ExitRecord } from "../../core/wait/outcome.ts";
import type { Meta } from "../../core/worker/meta.ts";
import type { DialogAnswer } from "../../core/worker/outputs.ts";
import { screenTail } from "../../core/worker/screen.ts";
import { placeSpawn } from "../../operations/accounts/place.ts";
import { claimSpare } from "../../operations/pool/claim.ts";
import { spawnWorker } from "../../operations/spawn/spawn.ts";
import { findRecentWorker, findWorkerBySession } from "../../operations/worker/find-worker.ts";
import { killWorker } from "../../operations/worker/kill.ts";
import { describeWorker } from "../../operations/worker/status.ts";
import { viewWorker } from "../../operations/worker/view.ts";
import { lastScreen, type Worker } from "../../operations/worker/worker.ts";
import { renderSpawnNotes } from "../verbs/render-mcp.ts";

export type PrintWorker =
  /**
   * `refill`: a claimed spare's, started once the turn is over (operations/pool/claim.ts).
   * `dialogs`: the startup dialogs answered for a worker started here (said on stderr already).
   */
  | {
      kind: "ready";
      name: string;
      anonymous: boolean;
      refill?: () => void;
      dialogs?: DialogAnswer[];
      /** The worker as this -p read it (a reused one); a worker it started is read by the turn. */
      loaded?: Worker;
      /**
       * A spare of the warm pool this anonymous -p claimed as it is (its claim found it alive, under
       * its lock, a moment ago). A takeover (--name) renames its tmux session first: not this.
       */
      claimed?: boolean;
    }
  /** A named worker that died: reported with its evidence, never silently respawned. */
  | { kind: "dead"; name: string; state: string; exit: ExitRecord | null; screen: string };

/**
 * Which worker runs the turn:
 * - `--resume R`: the worker named R; else the live worker holding session R; else, when R is a
 *   session id, a new worker that resumes it (claude --resume R); else "no such worker" (3).
 * - `--continue`: `--name N` if it exists; else the live worker in this cwd used last; else a new
 *   worker continuing the CLI's most recent conversation here (claude --continue).
 * - `--name N`: N, created if needed (a warm session). Otherwise an anonymous worker.
 * A worker -p makes is non-interactive (spawn --non-interactive): it never asks a person, as the
 * vendor's -p. One made by spawn keeps its TUI's own mode (it is the user's), which -p says.
 */
export async function acquireWorker(
  deps: Deps,
  input: PrintInput,
  note: (text: string) => void,
): Promise<PrintWorker> {
  const named = input.name;
  if (input.resume !== undefined) {
    const r = input.resume;
    if (WorkerName.safeParse(r).success && (await deps.store.exists(r))) {
      if (named && named !== r) throw new UsageError("--name and --resume name different workers");
      return reuse(deps, r, input, note);
    }
    const holder = await findWorkerBySession(deps, r);
    if (holder) {
      if (named && named !== holder.name)
        throw new UsageError(`session ${r} runs in worker ${holder.name}, not ${named}`);
      return reuse(deps, holder.name, input, note);
    }
    if (!isSessionId(r))
      throw new WorkerNotFoundError(`no worker or ${input.provider} session named ${r}`, { name: r });
    if (named && (await deps.store.exists(named)))
      throw new UsageError(
        `worker ${named} exists and holds another session; pick a new --name to resume ${r}`,
      );
    return create(deps, input, { resumeSession: r }, note);
  }
  if (named && (await deps.store.exists(named))) return reuse(deps, named, input, note);
  if (input.continue) {
    const cwd = resolveCwd(deps, input.cwd);
    const recent = await findRecentWorker(deps, { cwd, provider: input.provider });
    if (recent) return reuse(deps, recent.name, input, note);
    return create(deps, input, { continueSession: true }, note);
  }
  return create(deps, input, {}, note);
}

/** An anonymous worker is removed on every exit path; a named one is kept (warm). */
export async function releaseWorker(deps: Deps, worker: PrintWorker | null): Promise<void> {
  if (worker?.kind !== "ready") return;
  if (worker.anonymous)
    await killWorker({ ...deps, signal: undefined }, { name: worker.name, purge: true }).catch(
      () => undefined,
    );
  worker.refill?.();
}

async function create(
  deps: Deps,
  input: PrintInput,
  how: { resumeSession?: string; continueSession?: boolean },
  note: (text: string) => void,
): Promise<PrintWorker> {
  const anonymous = input.name === undefined;
  const name = input.name ?? `p-${deps.system.uuid().slice(0, 8)}`;
  // --account auto: placed first, so a claimed spare is one of the picked account.
  const { input: spawn, placement } = await placeSpawn(deps, spawnOfPrint(input, name, how));
  // A spare of the warm pool made for this very spawn takes the turn at once (an anonymous one keeps
  // its pool name and goes at the end like any anonymous worker; --name N takes N).
  const claimed = await claimSpare(deps, spawn, { rename: !anonymous, placement });
  if (claimed)
    return { kind: "ready", name: claimed.name, anonymous, refill: claimed.refill, claimed: anonymous };
  // Trust for the worker's session only: `claude -p` asks nothing and records nothing, and neither
  // may umbel -p (a trust question the CLI would keep is refused). On failure spawn unwinds it all.
  // An anonymous worker is this process's: killed with no chance to remove it (SIGKILL), its own
  // wrapper ends it (core/worker/owner.ts).
  const spawned = await spawnWorker(deps, spawn, { sessionTrust: true, owned: anonymous, placement });
  note(renderSpawnNotes(spawned));
  return { kind: "ready", name, anonymous, dialogs: spawned.dialogs };
}

async function reuse(
  deps: Deps,
  name: string,
  input: PrintInput,
  note: (text: string) => void,
): Promise<PrintWorker> {
  const view = await viewWorker(deps, name);
  const status = await describeWorker(deps, view);
  if (status.state === "dead" || status.state === "killed") {
    const screen = screenTail(await lastScreen(deps, name).catch(() => null));
    return { kind: "dead", name, state: status.state, exit: status.exit, screen };
  }
  const { meta } = view;
  if (meta.nonInteractive !== true)
    note(
      `umbel: worker ${name} was not started by -p: its CLI asks for permissions as in its TUI, and a prompt ends the turn with exit 126\n`,
    );
  const given = LAUNCH_FLAGS.filter((key) => input[key] !== undefined && !matchesMeta(meta, key, input));
  if (given.length > 0) {
    note(
      `umbel: worker ${name} is already running; launch flags apply only when a worker starts (ignored: ${given.map(flagName).join(", ")})\n`,
    );
  }
  return { kind: "ready", name, anonymous: false, loaded: view };
}

/** The worker was started with this very value (meta records model, permission mode, allowed tools). */
function matchesMeta(meta: Meta, key: (typeof LAUNCH_FLAGS)[number], input: PrintInput): boolean {
  if (key === "model") return meta.model === input.model;
  if (key === "permissionMode") return meta.permissionMode === input.permissionMode;
  if (key === "allowedTools") return JSON.stringify(meta.allowedTools) === JSON.stringify(input.allowedTools);
  return false;
}

function flagName(key: string): string {
  return `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

function resolveCwd(deps: Deps, cwd: string | undefined): string {
  if (cwd === undefined) return deps.cwd;
  return isAbsolute(cwd) ? cwd : resolve(deps.cwd, cwd);
}
