import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type CliJson, spawnOk } from "../helpers/cli.ts";
import { createSandbox, eventually, type Sandbox, UMBEL } from "../helpers/sandbox.ts";

// Workers on real tmux take seconds a test; bun's default is 5 s.
setDefaultTimeout(60_000);

/**
 * dist/umbel on a guarded turn while others act on the worker (issue 22 items 13 and 14): a send
 * while its check runs (plain: busy, --queue: after the guarded turn), and a waiter killed -9
 * mid-check (the next wait ends the orphaned check before it runs that check again).
 */

let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox();
});
afterAll(async () => {
  await sb.dispose();
});

const json = (text: string) => JSON.parse(text) as CliJson;
const submitted = (name: string) =>
  readFileSync(join(sb.root, "sessions", name, "events", "hooks.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((e) => e.hook_event_name === "UserPromptSubmit")
    .map((e) => String(e.prompt));

/** A check script in the work dir (checks run there); `$1` names this test's marker folder. */
function script(name: string, body: string): string {
  const path = join(sb.work, name);
  writeFileSync(path, body);
  return `sh ${path} ${join(sb.work, name.replace(/\.sh$/, ""))}`;
}

describe("a send while the guarded turn's check runs", () => {
  test("a plain send is refused busy (4), --queue waits: the queue sends it after the loop's last attempt", async () => {
    await spawnOk(sb, "gq");
    // Attempt 1's check says it runs, then waits (bounded) for the test's release, and fails.
    const check = script(
      "hold.sh",
      `mkdir -p "$1"
if [ "$UMBEL_ATTEMPT" = 1 ]; then
  : > "$1/checking"
  i=0; while [ ! -f "$1/release" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done
  echo "fix it"; exit 1
fi
exit 0
`,
    );
    const marks = join(sb.work, "hold");
    const sent = await sb.umbel(["send", "gq", "fake:reply one", "--accept", check, "--json"]);
    expect(sent.code).toBe(0);
    const waiting = sb.umbel(["wait", "gq", "--after", String(json(sent.stdout).baseline), "--json"]);
    await eventually(() => existsSync(join(marks, "checking")), 20_000, "the first check to run");

    const plain = await sb.umbel(["send", "gq", "fake:reply plain"]);
    expect(plain.stderr).toContain("is on a guarded turn (attempt 1/3, checking)");
    expect(plain.code).toBe(4);
    const queued = await sb.umbel(["send", "gq", "fake:reply queued", "--queue", "--json"]);
    expect(json(queued.stdout)).toMatchObject({ baseline: null, queued: { position: 0, state: "queued" } });

    writeFileSync(join(marks, "release"), "");
    const waited = await waiting;
    const outcome = json(waited.stdout);
    expect(outcome).toMatchObject({ reason: "stop" });
    expect((outcome.evidence.attempts as { passed: boolean }[]).map((a) => a.passed)).toEqual([false, true]);
    expect(waited.code).toBe(0);
    await eventually(() => submitted("gq").length === 3, 20_000, "the queued prompt to be sent");
    const [first, feedback, third] = submitted("gq");
    expect(first).toBe("fake:reply one");
    expect(feedback).toContain("fix it");
    expect(third).toBe("fake:reply queued");
  });
});

describe("a waiter killed -9 in the middle of a check", () => {
  test("the next wait ends the orphaned check before it runs that attempt's check again", async () => {
    await spawnOk(sb, "go");
    // Each run says it starts (and whether another run is still alive beside it); the first runs
    // until it is ended (at most 30 s), the one after the test's mark passes.
    const check = script(
      "orphan.sh",
      `mkdir -p "$1"
# alive, and not a zombie its new parent has not reaped yet
alive() {
  if [ -r "/proc/$1/stat" ]; then [ "$(sed 's/.*) //' "/proc/$1/stat" | cut -c1)" != Z ]; return; fi
  kill -0 "$1" 2>/dev/null
}
for p in $(sed -n 's/^start //p' "$1/runs" 2>/dev/null); do
  alive "$p" && echo "beside $p" >> "$1/runs"
done
echo "start $$" >> "$1/runs"
if [ -f "$1/second" ]; then echo "pass $$" >> "$1/runs"; exit 0; fi
i=0; while [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done
echo "end $$" >> "$1/runs"
exit 1
`,
    );
    const marks = join(sb.work, "orphan");
    const runs = () => (existsSync(join(marks, "runs")) ? readFileSync(join(marks, "runs"), "utf8") : "");
    const sent = await sb.umbel(["send", "go", "fake:reply x", "--accept", check, "--json"]);
    const baseline = String(json(sent.stdout).baseline);
    const first = Bun.spawn([UMBEL, "wait", "go", "--after", baseline], {
      cwd: sb.work,
      env: sb.env,
      stdout: "ignore",
      stderr: "ignore",
    });
    const guard = join(sb.root, "sessions", "go", "guards", `${baseline}.json`);
    // The check runs, and the guard record names its process.
    await eventually(
      () => runs().includes("start ") && readFileSync(guard, "utf8").includes('"running"'),
      20_000,
      "the first check to run",
    );
    first.kill("SIGKILL");
    await first.exited;
    const orphan = Number(/^start (\d+)$/m.exec(runs())?.[1]);
    writeFileSync(join(marks, "second"), "");

    const again = await sb.umbel(["wait", "go", "--after", baseline, "--json"]);
    const outcome = json(again.stdout);
    expect(outcome).toMatchObject({ reason: "stop" });
    expect((outcome.evidence.attempts as { passed: boolean }[]).map((a) => a.passed)).toEqual([true]);
    expect(again.code).toBe(0);
    const lines = runs().trim().split("\n");
    expect(lines.filter((l) => l.startsWith("beside"))).toEqual([]);
    expect(lines.filter((l) => l.startsWith("start"))).toHaveLength(2);
    expect(lines.at(-1)).toMatch(/^pass \d+$/);
    expect(lines).not.toContain(`end ${orphan}`);
  });
});
