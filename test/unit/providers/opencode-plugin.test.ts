// hooks/opencode-plugin.js in this process with a stand-in for opencode's SDK client: what it asks of
// opencode on its own, before any prompt.
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

setDefaultTimeout(20_000);

const dir = mkdtempSync(join(tmpdir(), "umbel-oc-plugin-"));
const events = join(dir, "hooks.jsonl");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The plugin reads its events log's path when it is loaded (and takes it out of the environment). */
async function loadPlugin() {
  process.env.UMBEL_OPENCODE_EVENTS = events;
  const mod = (await import("../../../hooks/opencode-plugin.js")) as unknown as {
    UmbelEvents: (ctx: { client: unknown }) => Promise<unknown>;
  };
  return mod.UmbelEvents;
}

test("a started opencode builds its providers, agents, commands and the model's tools before the first prompt", async () => {
  const calls: unknown[] = [];
  const call =
    (name: string, data: unknown = []) =>
    async (arg?: unknown) => {
      calls.push(arg === undefined ? name : [name, arg]);
      return { data };
    };
  const client = {
    config: { providers: call("providers"), get: call("config", { model: "stub/stub-model" }) },
    app: { agents: call("agents") },
    command: { list: call("commands") },
    tool: { list: call("tools") },
  };
  const plugin = await loadPlugin();
  await plugin({ client });
  expect(JSON.parse(readFileSync(events, "utf8").trim()).event).toBe("ready");
  for (let i = 0; i < 100 && calls.length < 5; i++) await Bun.sleep(10);
  const query = { provider: "stub", model: "stub-model" };
  expect(calls).toEqual(["providers", "agents", "commands", "config", ["tools", { query, ...query }]]);
});

test("a client that fails, or lacks a call, leaves the plugin as it was", async () => {
  const plugin = await loadPlugin();
  const failing = {
    config: {
      providers: async () => {
        throw new Error("no");
      },
    },
  };
  await expect(plugin({ client: failing })).resolves.toBeDefined();
  await expect(plugin({ client: {} })).resolves.toBeDefined();
  await Bun.sleep(20);
});
