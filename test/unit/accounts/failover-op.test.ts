import { describe, expect, test } from "bun:test";
import { sawLimit, unseen } from "../../../src/core/accounts/placement.ts";
import { getProvider } from "../../../src/core/providers/registry.ts";
import { failOverWorker } from "../../../src/operations/accounts/failover.ts";
import { addWorker, createFakeWorld } from "../../helpers/fake-deps.ts";

/** The driver's half of --on-limit failover on in-memory ports: the paths that relaunch nothing. */
const LIMIT = { window: "five_hour", resetsAt: "2026-12-03T13:00:00.000Z", message: "limit" };
const CONFIG = `[accounts.a]\nprovider = "claude"\nhome = "/h/a"\n\n[accounts.b]\nprovider = "claude"\nhome = "/h/b"\n`;

function world() {
  const w = createFakeWorld();
  w.files.set("/state/config.toml", CONFIG);
  addWorker(w, "w");
  const s = w.sessions.get("w");
  if (s?.meta) s.meta = { ...s.meta, account: "a" };
  return w;
}
const worker = (w: ReturnType<typeof world>) => {
  const meta = w.sessions.get("w")?.meta;
  if (!meta) throw new Error("no worker");
  return { meta, provider: getProvider("claude") };
};

describe("failOverWorker", () => {
  test("no account with headroom: the limit is recorded on the account left, not placed, the earliest reset across them", async () => {
    const w = world();
    const at = "2026-12-03T11:00:00.000Z";
    const out = { ...LIMIT, resetsAt: "2026-12-03T12:30:00.000Z" };
    for (const account of [null, "b"])
      await w.deps.store.updateAccountWindows("claude", account, (k) =>
        sawLimit(k, {
          limit: { ...out, resetsAt: account === null ? "2026-12-04T00:00:00.000Z" : out.resetsAt },
          at,
          worker: "x",
        }),
      );
    await w.clock.advance(Date.parse("2026-12-03T12:00:00Z") - w.clock.now());
    const { result } = await failOverWorker(w.deps, worker(w), {
      limit: LIMIT,
      left: [],
      until: Number.MAX_SAFE_INTEGER,
    });
    expect(result).toMatchObject({ status: "not-placed", earliestReset: "2026-12-03T12:30:00.000Z" });
    const a = await w.deps.store.readAccountWindows("claude", "a");
    expect(a).toEqual({
      ...unseen("claude", "a"),
      lastLimit: { at: "2026-12-03T12:00:00.000Z", worker: "w", limit: LIMIT },
    });
  });

  test("an account this wait left is never taken again (no ping-pong)", async () => {
    const w = world();
    await w.deps.store.updateAccountWindows("claude", null, (k) =>
      sawLimit(k, {
        limit: { ...LIMIT, resetsAt: "2099-01-01T00:00:00.000Z" },
        at: "2026-12-03T11:00:00.000Z",
        worker: "x",
      }),
    );
    const { result } = await failOverWorker(w.deps, worker(w), {
      limit: LIMIT,
      left: ["b"],
      until: Number.MAX_SAFE_INTEGER,
    });
    expect(result.status).toBe("not-placed");
  });

  test("another umbel moving the worker (its lock held): failed, nothing touched", async () => {
    const w = world();
    const held = await w.deps.store.lock("w", "failover");
    expect(held).not.toBeNull();
    const { result } = await failOverWorker(w.deps, worker(w), { limit: LIMIT, left: [], until: 0 });
    expect(result).toEqual({
      status: "failed",
      error: "another umbel is moving this worker to another account",
    });
    expect((await w.deps.store.readAccountWindows("claude", "a")).lastLimit).toBeNull();
  });

  test("moved meanwhile by another umbel (meta names another account): failed, saying where", async () => {
    const w = world();
    const loaded = worker(w);
    const s = w.sessions.get("w");
    if (s?.meta) s.meta = { ...s.meta, account: "b" };
    const { result } = await failOverWorker(w.deps, loaded, { limit: LIMIT, left: [], until: 0 });
    expect(result).toMatchObject({
      status: "failed",
      error: "another umbel moved this worker to b meanwhile",
    });
  });
});
