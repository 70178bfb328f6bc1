import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { endCheck, runCheck } from "../../src/adapters/guard/check.ts";
import { createGuardStore } from "../../src/adapters/guard/store.ts";
import { processStart } from "../../src/adapters/process-start.ts";
import { createStore } from "../../src/adapters/state.ts";
import { CHECK_LOG_KEEP_BYTES } from "../../src/core/common/log-bounds.ts";
import { FileAccessError, StateError } from "../../src/core/errors.ts";
import type { CheckProcess } from "../../src/core/ports.ts";
import { eventually } from "../helpers/sandbox.ts";

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

  test("a check that prints 30 MB: its log keeps the first and the last 512 KiB and says what it cut", async () => {
    // Issue 22 item 15: `--accept yes` grew its log to 4.1 GB in 5 s.
    const logPath = join(dir, "big.log");
    const run = await runCheck("head -c 30000000 /dev/zero | tr '\\0' x; echo; echo END >&2; exit 1", {
      cwd: dir,
      env,
      timeoutMs: 20_000,
      logPath,
    });
    expect(run).toMatchObject({ exitCode: 1, timedOut: false, outputBytes: 30_000_005 });
    expect(run.cutBytes).toBe(30_000_005 - 2 * CHECK_LOG_KEEP_BYTES);
    const log = await readFile(logPath, "utf8");
    expect(Buffer.byteLength(log)).toBeLessThan(2 * CHECK_LOG_KEEP_BYTES + 300);
    expect(log).toContain(
      `[umbel: ${run.cutBytes} bytes of this check's output were cut here; the log keeps its first and last ${CHECK_LOG_KEEP_BYTES} bytes]`,
    );
    expect(log.startsWith("xxxx")).toBe(true);
    expect(log.endsWith("x\nEND\n")).toBe(true);
    expect(run.output.endsWith("x\nEND\n")).toBe(true);
  }, 30_000);

  test("a check that prints a little: nothing cut, nothing said", async () => {
    const logPath = join(dir, "small.log");
    const run = await runCheck("echo hi", { cwd: dir, env, timeoutMs: 10_000, logPath });
    expect(run).toMatchObject({ outputBytes: 3, output: "hi\n" });
    expect(run.cutBytes).toBeUndefined();
    expect(await readFile(logPath, "utf8")).toBe("hi\n");
  });

  test("a log path that is a planted symbolic link is refused; its target is untouched", async () => {
    const target = join(dir, "elsewhere.txt");
    await Bun.write(target, "mine\n");
    const logPath = join(dir, "link.log");
    await symlink(target, logPath);
    const error = await runCheck("echo hi", { cwd: dir, env, timeoutMs: 10_000, logPath }).catch((e) => e);
    expect(error).toBeInstanceOf(FileAccessError);
    expect(await readFile(target, "utf8")).toBe("mine\n");
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

  test("onStart is told the check's process (the leader of its group, with its start) while it runs", async () => {
    const seen: CheckProcess[] = [];
    const go = join(dir, "d.go");
    // It runs until onStart has looked at it (at most 10 s).
    const run = await runCheck(
      `i=0; while [ ! -f ${go} ] && [ $i -lt 500 ]; do sleep 0.02; i=$((i+1)); done`,
      {
        cwd: dir,
        env,
        timeoutMs: 30_000,
        logPath: join(dir, "d.log"),
        onStart: async (proc) => {
          seen.push(proc);
          expect(await processStart(proc.pid)).toBe(proc.start);
          expect(isGroupAlive(proc.pid)).toBe(true);
          await writeFile(go, "");
        },
      },
    );
    expect(run.exitCode).toBe(0);
    expect(seen).toHaveLength(1);
  });

  test("an onStart that fails (the record cannot be written) ends the check, and its error is thrown", async () => {
    let pid = 0;
    const error = await runCheck("sleep 30", {
      cwd: dir,
      env,
      timeoutMs: 60_000,
      logPath: join(dir, "e.log"),
      onStart: async (proc) => {
        pid = proc.pid;
        throw new Error("no space");
      },
    }).catch((e: unknown) => e);
    expect((error as Error).message).toBe("no space");
    await eventually(() => !isGroupAlive(pid), 5000, "the check's group to go");
  });
});

describe("endCheck (a check a waiter that died left running)", () => {
  test("ends its whole group, and returns once it is gone", async () => {
    const child = Bun.spawn(["sh", "-c", "sleep 30 & sleep 30"], { detached: true, stdout: "ignore" });
    const proc = { pid: child.pid, start: await processStart(child.pid) };
    await endCheck(proc);
    expect(isGroupAlive(child.pid)).toBe(false);
    expect(await child.exited).not.toBe(0);
  });

  test("a pid that now names another process (it started later) is left alone", async () => {
    const child = Bun.spawn(["sleep", "30"], { detached: true, stdout: "ignore" });
    await endCheck({ pid: child.pid, start: "an earlier process" });
    expect(isGroupAlive(child.pid)).toBe(true);
    child.kill("SIGKILL");
    await child.exited;
  });
});

/** A process of the group that still runs (a zombie its new parent has not reaped yet runs nothing). */
function isGroupAlive(pgid: number): boolean {
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue;
    }
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (fields[2] === String(pgid) && fields[0] !== "Z") return true;
  }
  return false;
}

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
