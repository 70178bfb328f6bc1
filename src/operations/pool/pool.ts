import { SpawnFailedError } from "../../core/errors.ts";
import {
  DEFAULT_POOL_TTL_MS,
  isSpareName,
  type PoolMeta,
  SPARE_MARKER,
  SPARE_PREFIX,
} from "../../core/pool/pool.ts";
import { type PoolInput, type PoolResult, type SpareInfo, spawnOfPool } from "../../core/pool/schema.ts";
import type { Deps } from "../../core/ports.ts";
import { getProvider } from "../../core/providers/registry.ts";
import type { Meta } from "../../core/worker/meta.ts";
import { holdSlot } from "../spawn/boot-slot.ts";
import { DEFAULT_START_TIMEOUT_MS } from "../spawn/prepare.ts";
import { spawnWorker } from "../spawn/spawn.ts";
import { killWorker } from "../worker/kill.ts";
import { checkLiveness } from "../worker/worker.ts";
import { lockSpare } from "./claim.ts";
import { spawnKey } from "./key.ts";
import { settleTakeover } from "./takeover.ts";

/**
 * `umbel pool warm N [spawn flags] | ls | drain` (docs/performance.md#the-warm-pool). warm tops the
 * spares of one spawn key up to N and returns once they are ready; ls lists every spare; drain
 * removes them all. A spare is an ordinary worker (`pool-…`, meta.pool); no umbel process stays.
 */
export async function runPool(deps: Deps, input: PoolInput): Promise<PoolResult> {
  const started = deps.clock.now();
  const done = (part: Pick<PoolResult, "spares"> & Partial<PoolResult>): PoolResult => ({
    action: input.action,
    made: [],
    removed: [],
    dialogs: [],
    elapsedMs: deps.clock.now() - started,
    ...part,
  });
  if (input.action === "ls") return done({ spares: (await listSpares(deps)).map(({ info }) => info) });
  if (input.action === "drain") return done({ spares: [], removed: await drainPool(deps) });
  const key = await spawnKey(deps, spawnOfPool(input, `${SPARE_PREFIX}key`));
  // One warm of a key at a time, across processes: it counts the spares, then starts the rest
  // (three concurrent `pool warm 2` made 4). A later one waits, then finds them there.
  const lock = await holdSlot(
    deps,
    { group: `pool-${key.slice(0, 16)}`, slots: 1, timeoutMs: warmBound(input), label: "pool warm: its key" },
    "pool warm was interrupted",
    () => {
      throw new SpawnFailedError("another pool warm of this spawn is still starting its spares", {
        key: key.slice(0, 12),
      });
    },
  );
  try {
    const { made, dialogs } = await warmPool(deps, input, key);
    const spares = (await listSpares(deps)).filter((s) => s.key === key).map(({ info }) => info);
    return done({ spares, made, dialogs });
  } finally {
    await lock.release();
  }
}

/** How long a warm waits for another warm of its key: that one's spares, each within its start timeout. */
function warmBound(input: PoolInput): number {
  return (input.startTimeout ?? DEFAULT_START_TIMEOUT_MS) * ((input.count ?? 1) + 1);
}

async function warmPool(
  deps: Deps,
  input: PoolInput,
  key: string,
): Promise<Pick<PoolResult, "made" | "dialogs">> {
  const size = input.count ?? 1;
  const pool: PoolMeta = { key, size, ttlMs: input.ttl ?? DEFAULT_POOL_TTL_MS, state: "spare" };
  const have = (await listSpares(deps)).filter((s) => s.key === key && s.info.state !== "dead").length;
  const made: string[] = [];
  const dialogs: PoolResult["dialogs"] = [];
  const starts = Array.from({ length: Math.max(0, size - have) }, async () => {
    const name = `${SPARE_PREFIX}${deps.system.uuid().slice(-8)}`;
    // A spare is started before anyone asks for its folder: it trusts it for its own session only
    // (never a lasting trust, whichever -p or spawn claims it).
    const spawned = await spawnWorker(deps, spawnOfPool(input, name), { pool, sessionTrust: true });
    dialogs.push(...spawned.dialogs.map((d) => ({ worker: name, provider: spawned.provider, ...d })));
    // Claimable from here on (a claim and the retire timer both remove it, under the claim lock).
    await deps.store.writeWorkerFile(name, SPARE_MARKER, "");
    made.push(name);
  });
  // Every start runs to its end (each unwinds itself on failure); the first failure is reported.
  const failed = (await Promise.allSettled(starts)).find((r) => r.status === "rejected");
  if (failed) throw failed.reason;
  return { made, dialogs };
}

type Spare = { readonly info: SpareInfo; readonly key: string };

/** Every unclaimed spare, with whether it is starting, ready or dead. */
async function listSpares(deps: Deps): Promise<Spare[]> {
  const spares: Spare[] = [];
  for (const name of (await deps.store.listNames()).filter(isSpareName)) {
    const read = await deps.store.readMeta(name).catch(() => null);
    // A takeover whose claimer died half-way may make it a spare again.
    const meta = read?.pool?.takeover ? await settleTakeover(deps, name, read).catch(() => null) : read;
    if (meta?.pool?.state !== "spare") continue;
    const info: SpareInfo = {
      name,
      provider: meta.provider,
      cwd: meta.cwd,
      key: meta.pool.key.slice(0, 12),
      state: await spareState(deps, meta),
      ageMs: Math.max(0, deps.clock.now() - Date.parse(meta.createdAt)),
      ttlMs: meta.pool.ttlMs,
    };
    spares.push({ info, key: meta.pool.key });
  }
  return spares;
}

async function spareState(deps: Deps, meta: Meta): Promise<SpareInfo["state"]> {
  const live = await checkLiveness(deps, { meta, provider: getProvider(meta.provider) });
  if (!live.alive) return "dead";
  return meta.state === "ready" ? "ready" : "starting";
}

/**
 * Each unclaimed spare, under its claim lock: only one whose marker is still there (whoever removes
 * the marker has the spare; a claim that got there first keeps its worker).
 */
async function drainPool(deps: Deps): Promise<string[]> {
  const removed: string[] = [];
  for (const { info } of await listSpares(deps)) {
    const lock = await lockSpare(deps, info.name);
    if (!lock) continue;
    try {
      if ((await deps.store.readWorkerFile(info.name, SPARE_MARKER)) === null) continue;
      await deps.store.writeWorkerFile(info.name, SPARE_MARKER, null);
      await killWorker(deps, { name: info.name, purge: true });
      removed.push(info.name);
    } finally {
      await lock.release().catch(() => undefined);
    }
  }
  return removed;
}
