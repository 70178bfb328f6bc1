import { WorkerIncompleteError } from "../../core/errors.ts";
import { type PoolMeta, SPARE_MARKER } from "../../core/pool/pool.ts";
import type { Deps } from "../../core/ports.ts";
import type { Meta } from "../../core/worker/meta.ts";
import { isGone } from "../worker/alive.ts";

/**
 * `spawn NAME` taking a spare S over (docs/architecture.md#the-warm-pool), made crash-safe. The claim
 * (pool-claim.ts takeSpare) records the takeover in S's meta (pool.takeover: NAME and the claimer's
 * pid and start) under S's claim lock, before anything moves; then `takeOver` claims NAME (mkdir),
 * moves S's directory there, leaves S as a link to it, renames the tmux session and rewrites the
 * meta. A claimer killed anywhere in between leaves one of two states, both recognisable by the
 * record, which the next umbel that loads the worker settles (`settleTakeover`, from loadWorker):
 * - nothing moved (S's directory is S's): undone, S is a claimable spare again (an empty NAME
 *   directory it may have claimed is a half-made spawn: prune removes it after 10 minutes);
 * - moved (NAME's directory holds S's meta): finished, NAME is the worker.
 * While the claimer lives, S reads as the spare it was (claimed) and a moved NAME as being created.
 */
export async function takeOver(deps: Deps, spare: string, name: string, meta: Meta): Promise<Meta> {
  try {
    await deps.store.claim(name);
  } catch (error) {
    await settleNow(deps, spare, meta);
    throw error;
  }
  try {
    await deps.store.moveInto(spare, name);
    return await finish(deps, meta);
  } catch (error) {
    // What the next umbel would do, now: the state is never left half-way by a failure.
    const there = await moved(deps, meta);
    // Nothing moved: NAME is this process's own claim, still empty.
    if (!there && (await deps.store.exists(name).catch(() => true)) === false)
      await deps.store.remove(name).catch(() => undefined);
    await settleNow(deps, there ? name : spare, meta);
    throw error;
  }
}

/**
 * The meta of the worker listed as `listed`, its takeover settled when its claimer is gone; while
 * the claimer lives, the spare's own meta, or WorkerIncompleteError for NAME (being created).
 */
export async function settleTakeover(deps: Deps, listed: string, meta: Meta): Promise<Meta> {
  const takeover = meta.pool?.takeover;
  if (!takeover) return meta;
  const inFlight = () => {
    if (listed === meta.name) return meta;
    throw new WorkerIncompleteError(`worker ${takeover.to} is being taken over from spare ${meta.name}`, {
      name: takeover.to,
    });
  };
  if (!(await isGone(deps, takeover.by))) return inFlight();
  const lock = await deps.store.lock(listed, "claim");
  if (!lock) return inFlight();
  try {
    const now = await deps.store.readMeta(listed);
    if (!now.pool?.takeover) return now;
    deps.trace.mark(`pool: settling ${now.name}'s takeover to ${takeover.to} (its claimer is gone)`);
    return (await moved(deps, now)) ? await finish(deps, now) : await undo(deps, now);
  } finally {
    await lock.release();
  }
}

/** Settles a takeover this process gave up on, under the claim lock (best effort). */
async function settleNow(deps: Deps, listed: string, meta: Meta): Promise<void> {
  const lock = await deps.store.lock(listed, "claim").catch(() => null);
  try {
    await ((await moved(deps, meta)) ? finish(deps, meta) : undo(deps, meta));
  } catch {
    // The next umbel that looks settles it (the claimer is gone by then).
  } finally {
    await lock?.release().catch(() => undefined);
  }
}

/** The directory moved: NAME's holds the spare's meta with this very takeover. */
async function moved(deps: Deps, meta: Meta): Promise<boolean> {
  const to = meta.pool?.takeover?.to;
  if (!to) return false;
  const there = await deps.store.readMeta(to).catch(() => null);
  return there?.name === meta.name && there.pool?.takeover?.to === to;
}

/** The link, the tmux session's name, then the meta: NAME is the worker. Each step may be done already. */
async function finish(deps: Deps, meta: Meta): Promise<Meta> {
  const { takeover, ...pool } = meta.pool ?? ({} as PoolMeta);
  const to = takeover?.to ?? meta.name;
  await deps.store.linkAlias(meta.name, to);
  if (await deps.tmux.hasSession(meta.name)) await deps.tmux.renameSession(meta.name, to);
  const done: Meta = { ...meta, name: to, pool: { ...pool, state: "claimed", alias: meta.name } };
  await deps.store.writeMeta(done);
  return done;
}

/** Nothing moved: the spare is a spare again (its retire timer still runs: it waits for that). */
async function undo(deps: Deps, meta: Meta): Promise<Meta> {
  const { takeover: _takeover, ...pool } = meta.pool ?? ({} as PoolMeta);
  const spare: Meta = { ...meta, pool: { ...pool, state: "spare" } };
  await deps.store.writeMeta(spare);
  await deps.store.writeWorkerFile(meta.name, SPARE_MARKER, "");
  return spare;
}
