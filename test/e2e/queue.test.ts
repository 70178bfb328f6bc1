import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type CliJson, spawnOk } from "../helpers/cli.ts";
import { createSandbox, eventually, type Sandbox } from "../helpers/sandbox.ts";

// Workers on real tmux take seconds a test; bun's default is 5 s.
setDefaultTimeout(90_000);

/** dist/umbel: send --queue to a busy fake claude; the worker's own end-of-turn hook drains it. */

let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox();
  await spawnOk(sb, "q1");
});
afterAll(async () => {
  await sb.dispose();
});

const json = (text: string) => JSON.parse(text) as CliJson;
/** The prompts the worker was given, read from its events log (never through a verb that drains). */
const submitted = () =>
  readFileSync(join(sb.root, "sessions", "q1", "events", "hooks.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((e) => e.hook_event_name === "UserPromptSubmit")
    .map((e) => e.prompt);

describe("queued sends", () => {
  test("a busy worker queues prompts in order; its own hooks send each once it is idle, no umbel process alive", async () => {
    // Long enough that the next two sends find it busy even on a loaded 2-core CI (a 1.5 s turn had
    // ended before the third send under load, so --queue sent at once and the order check failed).
    expect((await sb.umbel(["send", "q1", "fake:slow 6000"])).code).toBe(0);
    const busy = await sb.umbel(["send", "q1", "fake:reply second"]);
    expect(busy.code).toBe(4);
    const second = await sb.umbel(["send", "q1", "fake:reply second", "--queue"]);
    expect(second.stdout).toMatch(/^queued q-[0-9a-f]{8} \(0 ahead\)\n$/);
    expect(second.code).toBe(0);
    const third = json((await sb.umbel(["send", "q1", "fake:reply third", "--queue", "--json"])).stdout);
    expect(third).toMatchObject({ baseline: null, queued: { position: 1, state: "queued" } });

    await eventually(() => submitted().length === 3, 20_000, "both queued prompts sent by the hooks");
    expect(submitted()).toEqual(["fake:slow 6000", "fake:reply second", "fake:reply third"]);

    const status = json((await sb.umbel(["status", "q1", "--json"])).stdout);
    const queue = status.queue as { id: string; state: string; baseline: number }[];
    expect(queue.map((e) => e.state)).toEqual(["sent", "sent"]);
    expect(queue[1]?.id).toBe(String((third.queued as Record<string, unknown>).id));
    const [sentSecond, sentThird] = queue;
    const done = await sb.umbel(["wait", "q1", "--after", String(sentThird?.baseline), "--timeout", "20s"]);
    expect(done.code).toBe(0);
    expect((await sb.umbel(["read", "q1", "--after", String(sentSecond?.baseline)])).stdout).toBe("second\n");
    expect((await sb.umbel(["read", "q1", "--after", String(sentThird?.baseline)])).stdout).toBe("third\n");
  });

  test("to an idle worker, --queue sends at once with a baseline", async () => {
    const r = json((await sb.umbel(["send", "q1", "fake:reply now", "--queue", "--json"])).stdout);
    expect(r).toMatchObject({ queued: { position: 0, state: "sent" } });
    expect(typeof r.baseline).toBe("number");
    expect((await sb.umbel(["wait", "q1", "--after", String(r.baseline)])).code).toBe(0);
  });
});

describe("a TUI lagging its hooks", () => {
  test("a turn the events say is running is busy, whatever the screen shows: status and --queue wait for it", async () => {
    const drawAfter = join(sb.dir, "draw-after");
    await spawnOk(sb, "lag", ["--env", `FAKE_CLAUDE_DRAW_AFTER=${drawAfter}`]);
    const log = join(sb.root, "sessions", "lag", "events", "hooks.jsonl");
    const prompts = () =>
      (existsSync(log) ? readFileSync(log, "utf8") : "")
        .split("\n")
        .filter((line) => line.includes('"UserPromptSubmit"'))
        .map((line) => (JSON.parse(line) as { prompt: string }).prompt);
    expect((await sb.umbel(["send", "lag", "fake:reply first"])).code).toBe(0);
    // The hook says the turn runs; the screen still shows the prompt in the box, no spinner.
    await eventually(() => prompts().length === 1, 20_000, "the first prompt's UserPromptSubmit");
    const status = json((await sb.umbel(["status", "lag", "--json"])).stdout);
    expect(status.state).toBe("busy");
    const queued = json((await sb.umbel(["send", "lag", "fake:reply second", "--queue", "--json"])).stdout);
    expect(queued).toMatchObject({ baseline: null, queued: { position: 0, state: "queued" } });
    expect(json((await sb.umbel(["status", "lag", "--json"])).stdout).state).toBe("busy");
    expect(prompts()).toEqual(["fake:reply first"]);
    // Drawn at last: the turn ends, and its Stop hook drains the queue.
    writeFileSync(drawAfter, "");
    await eventually(() => prompts().length === 2, 30_000, "the queued prompt sent by the hooks");
    expect(prompts()).toEqual(["fake:reply first", "fake:reply second"]);
    expect((await sb.umbel(["kill", "lag", "--purge"])).code).toBe(0);
  });
});
