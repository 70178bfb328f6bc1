import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

// bun's 5 s default is too short on 2 loaded cores; a preload's default reaches only the first
// file of a run (bun 1.4.5), so each file declares its own (test/unit/structure.test.ts).
setDefaultTimeout(60_000);

/**
 * hooks/hook.sh: append every payload; print events/halt-<Event>.json for that event only. The event
 * is the argument each provider's hook command passes for the event it registered it for, never a
 * name read from the payload (a model's MCP call arguments sit in it as raw JSON).
 */
const HOOK = join(import.meta.dir, "..", "..", "hooks", "hook.sh");
const HALT = '{"continue":false,"stopReason":"Reached maximum number of turns (1)"}\n';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "umbel-hook-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function fire(
  event: string,
  payload = `{"hook_event_name":"${event}",\n"x":1}`,
  args = [event],
): Promise<string> {
  const child = Bun.spawn(["sh", HOOK, join(dir, "hooks.jsonl"), "", ...args], {
    stdin: new Blob([payload]),
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
      expect(
        await fire("Stop", '{"hook_event_name":"Stop","cmd":"echo \\"hook_event_name\\":\\"PostToolUse\\""}'),
      ).toBe("");
    } finally {
      await rm(join(dir, "halt-PostToolUse.json"), { force: true });
    }
  });

  // An MCP call's arguments are raw JSON in the payload, after the CLI's own fields (claude
  // 2.1.332's order): the model names their keys.
  const planted = (event: string, spoof: string) =>
    `{"session_id":"S","hook_event_name":"${event}","tool_name":"mcp__fs__write","tool_input":{"hook_event_name":"${spoof}","tool_name":"Read"}}`;

  test.each([
    ["PreToolUse", "PostToolUse", ""],
    ["PostToolUse", "Stop", HALT],
  ])(
    "an event name planted in MCP arguments: the %s hook with %s planted prints %j",
    async (event, spoof, expected) => {
      await writeFile(join(dir, "halt-PostToolUse.json"), HALT);
      try {
        expect(await fire(event, planted(event, spoof))).toBe(expected);
      } finally {
        await rm(join(dir, "halt-PostToolUse.json"), { force: true });
      }
    },
  );

  test("a hook command without the event (an older umbel's) never prints a halt on a guess; the line is logged", async () => {
    await writeFile(join(dir, "halt-PostToolUse.json"), HALT);
    try {
      expect(await fire("PostToolUse", '{"hook_event_name":"PostToolUse","x":2}', [])).toBe("");
      expect(await readFile(join(dir, "hooks.jsonl"), "utf8")).toEndWith(
        '{"hook_event_name":"PostToolUse","x":2}\n',
      );
    } finally {
      await rm(join(dir, "halt-PostToolUse.json"), { force: true });
    }
  });

  test.each(["../halt-PostToolUse", "Post ToolUse", "PostToolUse/x"])(
    "an event argument that is no bare name (%j) names no halt file",
    async (event) => {
      await writeFile(join(dir, "halt-PostToolUse.json"), HALT);
      try {
        expect(await fire("PostToolUse", '{"hook_event_name":"PostToolUse"}', [event])).toBe("");
      } finally {
        await rm(join(dir, "halt-PostToolUse.json"), { force: true });
      }
    },
  );
});
