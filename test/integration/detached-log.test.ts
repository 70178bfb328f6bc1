import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startDetached } from "../../src/adapters/process.ts";
import { ROTATE_LOG_BYTES } from "../../src/core/common/log-bounds.ts";
import { eventually } from "../helpers/sandbox.ts";

// Declared here: a preload's setDefaultTimeout reaches only the first file of a run (oven-sh/bun#43787).
setDefaultTimeout(60_000);

/** pool-refill.log (startDetached's log): rotated past 1 MiB, never written through a planted link. */

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "umbel-detached-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };

describe("startDetached's log", () => {
  test("appends the process's output, 0600", async () => {
    const log = join(dir, "pool-refill.log");
    startDetached(["sh", "-c", "echo one"], env, log);
    await eventually(() => existsSync(log) && readFileSync(log, "utf8") === "one\n", 10_000, "the output");
    expect(statSync(log).mode & 0o777).toBe(0o600);
  });

  test("a log past 1 MiB is moved to <log>.1 first", async () => {
    const log = join(dir, "pool-refill.log");
    writeFileSync(log, "o".repeat(ROTATE_LOG_BYTES + 1));
    startDetached(["sh", "-c", "echo fresh"], env, log);
    await eventually(() => readFileSync(log, "utf8") === "fresh\n", 10_000, "the fresh log");
    expect(statSync(`${log}.1`).size).toBe(ROTATE_LOG_BYTES + 1);
  });

  test("a link where the log goes: the process runs, nothing is written through the link", async () => {
    const target = join(dir, "victim");
    writeFileSync(target, "mine\n");
    const log = join(dir, "pool-refill.log");
    symlinkSync(target, log);
    const ran = join(dir, "ran");
    startDetached(["sh", "-c", `echo out; touch '${ran}'`], env, log);
    await eventually(() => existsSync(ran), 10_000, "the process");
    expect(readFileSync(target, "utf8")).toBe("mine\n");
  });
});
