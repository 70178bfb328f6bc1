import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

// bun's 5 s default is too short on 2 loaded cores; a preload's default reaches only the first
// file of a run (bun 1.4.5), so each file declares its own (test/unit/structure.test.ts).
setDefaultTimeout(60_000);

/** hooks/hook.sh: append every payload; print events/halt-<Event>.json for that event only. */
const HOOK = join(import.meta.dir, "..", "..", "hooks", "hook.sh");
const HALT = '{"continue":false,"stopReason":"Reached maximum number of turns (1)"}\n';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "umbel-hook-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function fire(event: string): Promise<string> {
  const child = Bun.spawn(["sh", HOOK, join(dir, "hooks.jsonl")], {
    stdin: new Blob([`{"hook_event_name":"${event}",\n"x":1}`]),
    stdout: "pipe",
  });
  const out = await new Response(child.stdout).text();
  expect(await child.exited).toBe(0);
  return out;
}

describe("hook.sh", () => {
  test("prints nothing without a halt file; the payload is one line in the log", async () => {
    expect(await fire("PostToolUse")).toBe("");
    expect(await readFile(join(dir, "hooks.jsonl"), "utf8")).toBe(
      '{"hook_event_name":"PostToolUse","x":1}\n',
    );
  });

  test.each([
    ["PostToolUse", "PostToolUse", HALT],
    ["PostToolUse", "PostToolUseFailure", ""],
    ["AfterTool", "AfterTool", HALT],
    ["PreToolUse", "PreToolUse", HALT],
    ["PostToolUse", "Stop", ""],
    ["PostToolUse", "PreToolUse", ""],
  ])("with events/halt-%s.json, %s prints %j", async (armed, event, expected) => {
    await writeFile(join(dir, `halt-${armed}.json`), HALT);
    try {
      expect(await fire(event)).toBe(expected);
    } finally {
      await rm(join(dir, `halt-${armed}.json`), { force: true });
    }
  });

  test("a hook_event_name inside a string of the payload is not the event", async () => {
    await writeFile(join(dir, "halt-PostToolUse.json"), HALT);
    try {
      const child = Bun.spawn(["sh", HOOK, join(dir, "hooks.jsonl")], {
        stdin: new Blob(['{"hook_event_name":"Stop","cmd":"echo \\"hook_event_name\\":\\"PostToolUse\\""}']),
        stdout: "pipe",
      });
      expect(await new Response(child.stdout).text()).toBe("");
    } finally {
      await rm(join(dir, "halt-PostToolUse.json"), { force: true });
    }
  });
});
