import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createGuardStore } from "../../src/adapters/guard-store.ts";
import { runCheck } from "../../src/adapters/run-check.ts";
import { createStore } from "../../src/adapters/state.ts";
import { StateError } from "../../src/core/errors.ts";

// bun's 5 s default is too short on 2 loaded cores; a preload's default reaches only the first
// file of a run (bun 1.4.5), so each file declares its own (test/unit/structure.test.ts).
setDefaultTimeout(60_000);

/** The real check runner (sh -c, one log, its process group) and the guardrails' files. */

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "umbel-guard-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", MARK: "m1" };

describe("runCheck", () => {
  test("stdout and stderr in order in one log; the record keeps its exit and the last 4 KB", async () => {
    const logPath = join(dir, "a.log");
    const filler = "x".repeat(5000);
    const run = await runCheck(`echo ${filler}; echo one; echo two >&2; echo "$MARK"; exit 3`, {
      cwd: dir,
      env,
      timeoutMs: 10_000,
      logPath,
    });
    expect(run).toMatchObject({ exitCode: 3, signal: null, timedOut: false });
    expect(run.output.endsWith("one\ntwo\nm1\n")).toBe(true);
    expect(Buffer.byteLength(run.output)).toBeLessThanOrEqual(4096);
    expect((await readFile(logPath, "utf8")).length).toBeGreaterThan(5000);
    expect((await stat(logPath)).mode & 0o777).toBe(0o600);
  });

  test("past its timeout the whole group is killed (a child that ignores the shell's end too)", async () => {
    const marker = join(dir, "survived");
    const started = Date.now();
    const run = await runCheck(`(sleep 3; touch ${marker}) & sleep 30`, {
      cwd: dir,
      env,
      timeoutMs: 300,
      logPath: join(dir, "b.log"),
    });
    expect(run).toMatchObject({ exitCode: null, timedOut: true, signal: "SIGKILL" });
    expect(Date.now() - started).toBeLessThan(5000);
    await Bun.sleep(3500);
    expect(await Bun.file(marker).exists()).toBe(false);
  }, 15_000);

  test("an abort ends it at once", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const run = await runCheck("sleep 30", {
      cwd: dir,
      env,
      timeoutMs: 60_000,
      logPath: join(dir, "c.log"),
      signal: controller.signal,
    });
    expect(run).toMatchObject({ exitCode: null, timedOut: false, signal: "SIGKILL" });
  });
});

describe("guard store", () => {
  test("records by baseline, the turn schema, and StructuredOutput calls appended in order", async () => {
    const store = createStore(join(dir, "state"), async () => undefined);
    await store.claim("w1");
    const guards = createGuardStore(store);
    expect(await guards.list("w1")).toEqual([]);
    expect(await guards.readTurnSchema("w1")).toBeNull();
    const record = {
      version: 1 as const,
      baseline: 12,
      accept: ["true"],
      maxAttempts: 3,
      acceptTimeoutMs: 1000,
      turns: [12],
      attempts: [],
      phase: "turn" as const,
      enforced: false,
      createdAt: "2026-01-01T00:00:00.000Z",
    };
    await guards.write("w1", { ...record, baseline: 3, turns: [3] });
    await guards.write("w1", record);
    expect((await guards.list("w1")).map((r) => r.baseline)).toEqual([3, 12]);
    await guards.remove("w1", 3);
    expect((await guards.list("w1")).map((r) => r.baseline)).toEqual([12]);
    await guards.writeTurnSchema("w1", { baseline: 12, schema: { type: "object" } });
    expect(await guards.readTurnSchema("w1")).toEqual({ baseline: 12, schema: { type: "object" } });
    await guards.appendStructured("w1", { baseline: 12, ok: false, errors: ["e"] });
    await guards.appendStructured("w1", { baseline: 12, ok: true, object: { n: 1 } });
    expect(await guards.readStructured("w1")).toEqual([
      { baseline: 12, ok: false, errors: ["e"] },
      { baseline: 12, ok: true, object: { n: 1 } },
    ]);
    expect(guards.path("w1", "12-1.answer")).toBe(
      join(dir, "state", "sessions", "w1", "guards", "12-1.answer"),
    );
  });

  test("a record it cannot read is a state error naming the file", async () => {
    const store = createStore(join(dir, "state2"), async () => undefined);
    await store.claim("w2");
    const guards = createGuardStore(store);
    await Bun.write(join(dir, "state2", "sessions", "w2", "guards", "5.json"), "{not json");
    const error = await guards.list("w2").catch((e) => e);
    expect(error).toBeInstanceOf(StateError);
    expect((error as Error).message).toContain("guards/5.json");
  });
});
