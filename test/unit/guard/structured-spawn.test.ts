import { describe, expect, test } from "bun:test";
import { SpawnFailedError } from "../../../src/core/errors.ts";
import { spawnWorker } from "../../../src/operations/spawn/spawn.ts";
import { IDLE } from "../../fixtures/claude-screens.ts";
import { createFakeWorld } from "../../helpers/fake-deps.ts";

/** spawn --structured: ready only once the CLI has connected to umbel's StructuredOutput server. */

const ev = (name: string, extra: object = {}) => ({ hook_event_name: name, session_id: "S", ...extra });

function world(connectAfterMs: number | null) {
  const w = createFakeWorld();
  w.tmux.onNewSession = ({ name }) => {
    Object.assign(w.tmux.panes.get(name) ?? {}, { screen: IDLE });
    w.hook(name, ev("SessionStart", { transcript_path: "/t/s.jsonl" }));
    if (connectAfterMs === null) return;
    w.clock.at(w.clock.now() + connectAfterMs, () => {
      w.files.set(w.deps.guards.path(name, "server-ready"), "1\n");
    });
  };
  return w;
}

describe("spawn --structured", () => {
  test("waits for the server's connection, records the ability, launches the server", async () => {
    const w = world(2000);
    const started = w.clock.now();
    const result = await spawnWorker(w.deps, { name: "w1", provider: "claude", structured: true });
    expect(result.state).toBe("ready");
    expect(w.clock.now() - started).toBeGreaterThanOrEqual(2000);
    expect(w.sessions.get("w1")?.meta?.structured).toBe(true);
    const argv = w.tmux.started[0]?.command.join(" ") ?? "";
    expect(argv).toContain('"args":["__structured-output","/state","w1"]');
    expect(argv).toContain("mcp__umbel_structured__StructuredOutput");
  });

  test("a CLI that never connects fails the spawn (and unwinds it) at its start timeout", async () => {
    const w = world(null);
    const error = await spawnWorker(w.deps, {
      name: "w1",
      provider: "claude",
      structured: true,
      startTimeout: 5000,
    }).catch((e) => e);
    expect(error).toBeInstanceOf(SpawnFailedError);
    expect((error as Error).message).toContain("StructuredOutput server");
    expect(w.sessions.has("w1")).toBe(false);
  });

  test("a --mcp-config server named umbel_structured is refused with --structured, before anything is made", async () => {
    const w = world(0);
    await expect(
      spawnWorker(w.deps, {
        name: "w1",
        provider: "claude",
        structured: true,
        mcpConfig: ['{"mcpServers":{"umbel_structured":{"command":"x"}}}'],
      }),
    ).rejects.toThrow('the server name "umbel_structured" is umbel\'s own with --structured');
    expect(w.tmux.started).toHaveLength(0);
  });
});
