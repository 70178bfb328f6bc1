import type { Placement } from "../../core/accounts/placement.ts";
import { FileAccessError, NameTakenError, UsageError } from "../../core/errors.ts";
import {
  isPoolable,
  isSpareName,
  type PoolMeta,
  refillArgv,
  SPARE_MARKER,
  SPARE_PREFIX,
} from "../../core/pool/pool.ts";
import type { Deps, Lock } from "../../core/ports.ts";
import { getProvider } from "../../core/providers/registry.ts";
import type { SpawnInput } from "../../core/spawn/input.ts";
import type { Meta } from "../../core/worker/meta.ts";
import type { SpawnResult } from "../../core/worker/outputs.ts";
import { OWNER_FILE, ownerLine } from "../../core/worker/owner.ts";
import { placeSpawn } from "../accounts/place.ts";
import { spawnWorker } from "../spawn/spawn.ts";
import { thisProcess } from "../worker/alive.ts";
import { checkLiveness } from "../worker/worker.ts";
import { spawnKeyMaterial } from "./key.ts";
import { takeOver } from "./takeover.ts";

/**
 * `spawn`: a matching spare of the warm pool when there is one (ready at once), else a new worker.
 * A name with the spares' prefix is refused: `pool warm` owns those.
 */
export async function spawnOrClaim(deps: Deps, input: SpawnInput): Promise<SpawnResult> {
  if (isSpareName(input.name))
    throw new UsageError(`worker names starting with ${SPARE_PREFIX} are the warm pool's (umbel pool warm)`, {
      name: input.name,
    });
  const started = deps.clock.now();
  // --account auto places first: the spare claimed is one of the picked account (its key is that one's).
  const { input: placed, placement } = await placeSpawn(deps, input);
  const claimed = await claimSpare(deps, placed, { rename: true, placement });
  if (!claimed) return spawnWorker(deps, placed, { placement });
  claimed.refill();
  return {
    name: claimed.name,
    provider: claimed.meta.provider,
    cwd: claimed.meta.cwd,
    sessionId: claimed.meta.sessionId,
    state: "ready",
    elapsedMs: deps.clock.now() - started,
    dialogsAnswered: [],
    dialogs: [],
    ...(placement ? { placement } : {}),
  };
}

export type ClaimedSpare = {
  readonly name: string;
  readonly meta: Meta;
  /**
   * Starts the detached refill. The caller picks when: a -p starts it once its turn is over, since a
   * TUI booting beside the turn took the turn's CPU (2 cores: the pooled turn went from ×0.5 to ×1.5).
   */
  refill(): void;
};

/**
 * Claims a ready spare made for this very spawn (same spawn key); null when there is none (the
 * caller starts a worker itself). The caller then starts the refill (ClaimedSpare.refill). The claim
 * is atomic across processes: under the spare's claim lock (which pool drain and its retire timer
 * take too), a spare whose pool.spare marker is still there gets its claimed meta, then loses the
 * marker: whoever removes the marker has it, and nobody else touches it.
 * `rename`: the spare becomes `input.name` (spawn NAME: a takeover, pool-takeover.ts); else it keeps
 * its own name and belongs to this process (an anonymous -p: meta.owner, core/worker/owner.ts).
 */
export async function claimSpare(
  deps: Deps,
  input: SpawnInput,
  /** placement: how `--account auto` chose the input's account, kept in the claimed meta. */
  options: { rename: boolean; placement?: Placement | null },
): Promise<ClaimedSpare | null> {
  if (!isPoolable(input)) return null;
  const spares = (await deps.store.listNames()).filter(isSpareName);
  if (spares.length === 0) return null;
  // Taken names fail here, before a spare is claimed for nothing.
  if (options.rename && (await deps.store.exists(input.name)))
    throw new NameTakenError(`a worker named ${input.name} already exists`, { name: input.name });
  // Who claims: the takeover's record, or the owner (never a claim no one could tell was abandoned).
  const me = await thisProcess(deps);
  if (!me) return null;
  // A pool.key umbel cannot use (a directory, a link: never followed) means no spare: start cold.
  const key = await deps.store.keyedHash(await spawnKeyMaterial(deps, input)).catch((error: unknown) => {
    if (!(error instanceof FileAccessError)) throw error;
    deps.trace.mark(`pool: no claim, the key is unusable (${error.message})`);
    return null;
  });
  if (key === null) return null;
  for (const spare of spares) {
    const claim = (ready: Meta): Meta => {
      const meta = options.placement ? { ...ready, placement: options.placement } : ready;
      const pool: PoolMeta = { ...(meta.pool as PoolMeta), state: "claimed" };
      if (options.rename) return { ...meta, pool: { ...pool, takeover: { to: input.name, by: me } } };
      return { ...meta, owner: me, pool };
    };
    const taken = await takeSpare(deps, spare, key, claim, options.rename ? null : ownerLine(me));
    if (!taken?.pool) continue;
    deps.trace.mark(`pool: claimed ${spare}`);
    const claimed = options.rename ? await takeOver(deps, spare, input.name, taken) : taken;
    const size = taken.pool;
    // The spare's cwd is the spawn's, resolved: the refill may start elsewhere.
    return {
      name: claimed.name,
      meta: claimed,
      refill: () => startRefill(deps, { ...input, cwd: taken.cwd }, size),
    };
  }
  return null;
}

/**
 * The spare's claimed meta (`claim` of its own, written with `owner` as its owner file) once this
 * process holds it: under its claim lock, a ready, live spare of this key whose marker is there
 * gets them, then loses the marker. null when it is not one to take.
 */
async function takeSpare(
  deps: Deps,
  name: string,
  key: string,
  claim: (meta: Meta) => Meta,
  owner: string | null,
): Promise<Meta | null> {
  const claimable = (meta: Meta | null) =>
    meta?.pool?.key === key && meta.pool.state === "spare" && meta.state === "ready";
  if (!claimable(await deps.store.readMeta(name).catch(() => null))) return null;
  const lock = await lockSpare(deps, name);
  if (!lock) return null;
  try {
    const meta = await deps.store.readMeta(name).catch(() => null);
    if (!meta || !claimable(meta) || (await deps.store.readWorkerFile(name, SPARE_MARKER)) === null)
      return null;
    // A spare that died (or whose tmux session went) is drain's to remove, not a worker to hand out.
    if (!(await checkLiveness(deps, { meta, provider: getProvider(meta.provider) })).alive) return null;
    const claimed = claim(meta);
    // The wrapper reads these in this order each second: an owner first, then the marker.
    if (owner !== null) await deps.store.writeWorkerFile(name, OWNER_FILE, owner);
    await deps.store.writeMeta(claimed);
    await deps.store.writeWorkerFile(name, SPARE_MARKER, null);
    return claimed;
  } finally {
    await lock.release();
  }
}

/**
 * The spare's claim lock; null when another process holds it, or when the spare is gone since it was
 * listed: taken over (its directory renamed to NAME) or removed. That lock's folder is missing then
 * (ENOENT): pool drain exited 1 on it. By the time it looks again the takeover may have made the link
 * that keeps the old path (CI, stop 34): a spare is gone when its name is no longer a directory of its
 * own (listNames skips links), not only when nothing is there.
 */
export async function lockSpare(deps: Deps, name: string): Promise<Lock | null> {
  try {
    return await deps.store.lock(name, "claim");
  } catch (error) {
    if (error instanceof FileAccessError && !(await stillListed(deps, name))) return null;
    throw error;
  }
}

/** The spare is still a worker directory of its own (true when that cannot be read: the error stands). */
async function stillListed(deps: Deps, name: string): Promise<boolean> {
  return (await deps.store.listNames().catch(() => [name])).includes(name);
}

/**
 * A detached `umbel pool warm N` with the claimed spawn's flags tops the pool up again; its env is
 * this process's plus the explicit `--env` values, each passed on it by name only. Only a compiled
 * umbel can run itself (SystemPort.selfCommand): from source, the pool is not refilled.
 */
function startRefill(deps: Deps, input: SpawnInput, pool: PoolMeta): void {
  const self = deps.system.selfCommand();
  if (!self) return;
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(deps.env)) if (value !== undefined) env[name] = value;
  for (const [name, value] of Object.entries(input.env ?? {})) {
    const resolved = typeof value === "string" ? value : deps.env[value.fromEnv];
    if (resolved !== undefined) env[name] = resolved;
  }
  const { name: _name, ...spawn } = input;
  deps.system.startDetached([...self, ...refillArgv(spawn, pool)], env, `${deps.store.root}/pool-refill.log`);
  deps.trace.mark(`pool: refill started (${pool.size} spares)`);
}
