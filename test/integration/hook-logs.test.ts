import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HOOK_RUN_LOG_BYTES, ROTATE_LOG_BYTES } from "../../src/core/common/log-bounds.ts";
import { eventually } from "../helpers/sandbox.ts";

// Declared here: a preload's setDefaultTimeout reaches only the first file of a run (oven-sh/bun#43787).
setDefaultTimeout(60_000);

/**
 * Issue 22 item 15 and the planted links, on hooks/hook.sh itself: a --notify command printing
 * 30 MB a turn grew notify.log by as much each turn; each run now appends at most HOOK_RUN_LOG_BYTES
 * (the cut said), a log past ROTATE_LOG_BYTES is moved to <log>.1 first, and a link planted where
 * the events log or notify.log goes is never written through.
 */
const HOOK = join(import.meta.dir, "..", "..", "hooks", "hook.sh");
const CUT = `[umbel: this output was cut at ${HOOK_RUN_LOG_BYTES} bytes]`;

let session: string;
let events: string;
beforeEach(async () => {
  session = join(await mkdtemp(join(tmpdir(), "umbel-hooklog-")), "w1");
  events = join(session, "events");
  await mkdir(events, { recursive: true });
  await writeFile(join(session, "notify.tsv"), "Stop\tstop\t0\t-\t-\n");
});
afterEach(async () => {
  await rm(join(session, ".."), { recursive: true, force: true });
});

async function fire(payload = '{"hook_event_name":"Stop","session_id":"S"}'): Promise<void> {
  const event = /"hook_event_name":"(\w+)"/.exec(payload)?.[1] ?? "";
  const child = Bun.spawn(["sh", HOOK, join(events, "hooks.jsonl"), "", event], {
    stdin: new Blob([payload]),
    stdout: "pipe",
  });
  await new Response(child.stdout).text();
  expect(await child.exited).toBe(0);
}

/** The background notify runs are over once their payload files are gone. */
const settled = () =>
  eventually(
    () => !readdirSync(session).some((f) => /^notify\.\d+\.json$|\.cut$/.test(f)),
    20_000,
    "notify runs",
  );
const size = (file: string) => (existsSync(file) ? statSync(file).size : 0);

describe("hook.sh's logs are bounded", () => {
  test("a notify command printing 3 MB a turn: each run appends at most 64 KiB, and says it cut", async () => {
    await writeFile(
      join(session, "notify.cmd"),
      "head -c 3000000 /dev/zero | tr '\\0' y; echo; echo tail-$UMBEL_OUTCOME",
    );
    for (let i = 0; i < 3; i++) await fire();
    await settled();
    const log = readFileSync(join(session, "notify.log"), "utf8");
    expect(log.split(CUT).length - 1).toBe(3);
    expect(size(join(session, "notify.log"))).toBeLessThanOrEqual(3 * (HOOK_RUN_LOG_BYTES + CUT.length + 2));
    expect(log).not.toContain("tail-stop");
  });

  test("a small output is appended whole, with nothing said", async () => {
    await writeFile(join(session, "notify.cmd"), "echo one-$UMBEL_OUTCOME");
    await fire();
    await settled();
    expect(readFileSync(join(session, "notify.log"), "utf8")).toBe("one-stop\n");
  });

  test("a policy call's stderr goes to policy.log, bounded the same way", async () => {
    await writeFile(join(session, "policy.tsv"), 'PreToolUse\t"Bash"\t-\t-\n');
    await writeFile(join(session, "policy.cmd"), "head -c 3000000 /dev/zero | tr '\\0' e >&2; exit 3");
    await fire('{"hook_event_name":"PreToolUse","tool_name":"Bash"}');
    const log = readFileSync(join(session, "policy.log"), "utf8");
    expect(log).toContain(CUT);
    expect(log).toEndWith("umbel policy: exit 3 at PreToolUse\n");
    expect(size(join(session, "policy.log"))).toBeLessThan(HOOK_RUN_LOG_BYTES + 200);
    expect(readdirSync(events).filter((f) => f.endsWith(".err") || f.endsWith(".tmp"))).toEqual([]);
  });

  test("a log past 1 MiB is moved to notify.log.1 before the next append (one old log kept)", async () => {
    await writeFile(join(session, "notify.cmd"), "echo fresh");
    await writeFile(join(session, "notify.log"), "o".repeat(ROTATE_LOG_BYTES + 1));
    await writeFile(join(session, "notify.log.1"), "older");
    await fire();
    await settled();
    expect(readFileSync(join(session, "notify.log"), "utf8")).toBe("fresh\n");
    expect(size(join(session, "notify.log.1"))).toBe(ROTATE_LOG_BYTES + 1);
  });
});

describe("links planted in a worker's folder are not written through", () => {
  test("notify.log a link: the command runs, its output goes nowhere, the target is untouched", async () => {
    const target = join(session, "..", "victim");
    await writeFile(target, "mine\n");
    await symlink(target, join(session, "notify.log"));
    await writeFile(join(session, "notify.cmd"), `echo ran > ${join(session, "..", "ran")}; echo out`);
    await fire();
    await settled();
    await eventually(() => existsSync(join(session, "..", "ran")), 10_000, "the notify command");
    expect(readFileSync(target, "utf8")).toBe("mine\n");
  });

  test("the events log a link: the payload is not appended to its target", async () => {
    const target = join(session, "..", "victim");
    await writeFile(target, "mine\n");
    await symlink(target, join(events, "hooks.jsonl"));
    await fire('{"hook_event_name":"PostToolUse"}');
    expect(readFileSync(target, "utf8")).toBe("mine\n");
  });

  test("a link at the hook's temp file's name is not followed", async () => {
    const target = join(session, "..", "victim");
    await writeFile(target, "mine\n");
    // The hook's temp file is <log>.<pid>.tmp: plant it for the pids the next few processes may get.
    const child = Bun.spawn(["sh", "-c", 'printf "%s" "$$"'], { stdout: "pipe" });
    const pid = Number(await new Response(child.stdout).text());
    for (let p = pid + 1; p < pid + 50; p++) await symlink(target, join(events, `hooks.jsonl.${p}.tmp`));
    await fire('{"hook_event_name":"PostToolUse","n":1}');
    expect(readFileSync(target, "utf8")).toBe("mine\n");
    expect(readFileSync(join(events, "hooks.jsonl"), "utf8")).toBe(
      '{"hook_event_name":"PostToolUse","n":1}\n',
    );
  });
});
