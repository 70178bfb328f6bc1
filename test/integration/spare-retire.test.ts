import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { readLock, reapMarker } from "../../src/adapters/lock-file.ts";
import { processStart } from "../../src/adapters/process-start.ts";
import { createTmux, deriveSocket } from "../../src/adapters/tmux.ts";
import { SPARE_MARKER } from "../../src/core/pool/pool.ts";
import type { PoolInput } from "../../src/core/pool/schema.ts";
import type { Deps, StorePort } from "../../src/core/ports.ts";
import { runPool } from "../../src/operations/pool/pool.ts";
import { createSandbox, eventually, type Sandbox } from "../helpers/sandbox.ts";

setDefaultTimeout(90_000);

/**
 * A spare's retire (hooks/launch.sh) and a claim lock left behind: a spare whose claimer died
 * holding its claim.lock never retired. The wrapper takes the lock as adapters/lock-file.ts does: a
 * stale one (a dead holder's; one with no readable holder once watched for 5 s) is taken over under
 * the marker umbel's takers take for that file (`<lock>.reap-<inode>`), a live holder's never, nor
 * one a live reaper is taking over. Each lock is planted before the spare's marker is written, so
 * no TTL races the plant; the live ones are judged once the stale ones retired (their TTL long over).
 */
let sb: Sandbox;
let deps: Deps;
let holder: ReturnType<typeof Bun.spawn>;
beforeAll(async () => {
  sb = await createSandbox();
  deps = sb.deps();
  holder = Bun.spawn(["sleep", "600"], { stdin: "ignore", stdout: "ignore", stderr: "ignore" });
});
afterAll(async () => {
  holder.kill("SIGKILL");
  await createTmux({ socket: deriveSocket(sb.root, undefined), hostEnv: sb.env })
    .killServer()
    .catch(() => undefined);
  await sb.dispose();
});

/** A pid that no process has any more (a claimer that died). */
function deadPid(): number {
  return Bun.spawnSync(["true"]).pid;
}

const tmuxSessions = () =>
  createTmux({ socket: deriveSocket(sb.root, undefined), hostEnv: sb.env }).listSessions();
const sessionDir = (name: string) => join(sb.root, "sessions", name);

type Plant = (lock: string) => Promise<void>;
const byDeadClaimer: Plant = (lock) =>
  writeFile(lock, JSON.stringify({ pid: deadPid(), start: "1", nonce: "dead" }), { mode: 0o600 });
const byLive = async (lock: string) =>
  writeFile(lock, JSON.stringify({ pid: holder.pid, start: await processStart(holder.pid), nonce: "live" }));
const PLANTS: Record<string, Plant> = {
  "a dead claimer's": byDeadClaimer,
  "an empty one": (lock) => writeFile(lock, "", { mode: 0o600 }),
  "a dead claimer's that a live reaper is taking over": async (lock) => {
    await byDeadClaimer(lock);
    const seen = await readLock(lock);
    if (!seen) throw new Error("no lock");
    await byLive(reapMarker(lock, seen));
  },
  "a live claimer's": byLive,
};

describe("a spare's claim lock at its TTL", () => {
  test("a stale one is taken over and the spare retires; a live holder's (or a live reaper's) keeps it until that process is gone", async () => {
    const kinds = Object.keys(PLANTS);
    const planted = new Map<string, string>();
    const store: StorePort = {
      ...deps.store,
      async writeWorkerFile(name, file, text) {
        if (file === SPARE_MARKER) {
          const kind = kinds[planted.size] ?? "";
          planted.set(kind, name);
          await PLANTS[kind]?.(join(sessionDir(name), "claim.lock"));
        }
        return deps.store.writeWorkerFile(name, file, text);
      },
    };
    const warm = { action: "warm", provider: "claude", count: kinds.length, ttl: 1000 } as PoolInput;
    const made = (await runPool({ ...deps, store }, warm)).made;
    expect(made.sort()).toEqual([...planted.values()].sort());
    const spare = (kind: string) => planted.get(kind) ?? "-";
    const gone = async (kind: string) =>
      !existsSync(sessionDir(spare(kind))) && !(await tmuxSessions()).includes(spare(kind));

    await eventually(() => gone("a dead claimer's"), 30_000, "a dead claimer's spare to retire");
    await eventually(() => gone("an empty one"), 30_000, "the spare with an empty lock to retire");

    const live = ["a live claimer's", "a dead claimer's that a live reaper is taking over"];
    for (const kind of live) {
      expect({ kind, there: existsSync(sessionDir(spare(kind))) }).toEqual({ kind, there: true });
      expect({ kind, running: (await tmuxSessions()).includes(spare(kind)) }).toEqual({
        kind,
        running: true,
      });
    }
    const reaping = join(sessionDir(spare(live[1] ?? "")), "claim.lock");
    expect(JSON.parse(await readFile(reaping, "utf8"))).toMatchObject({ nonce: "dead" });

    holder.kill("SIGKILL");
    await holder.exited;
    for (const kind of live) await eventually(() => gone(kind), 30_000, `${kind} spare to retire`);
  });
});
