import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseRecord } from "../../../src/core/providers/opencode/transcript.ts";
import { spawnWorker } from "../../../src/operations/spawn/spawn.ts";
import { waitForTurn } from "../../../src/operations/wait/wait.ts";
import { readAnswer } from "../../../src/operations/worker/read.ts";
import { sendPrompt } from "../../../src/operations/worker/send.ts";
import { statusOf } from "../../../src/operations/worker/status.ts";
import { addWorker, createFakeWorld, type FakeWorld } from "../../helpers/fake-deps.ts";

/** The engine on an opencode worker, in memory: plugin records in the events log, the SQLite record as text. */

const screen = (name: string) =>
  readFileSync(join(import.meta.dir, "..", "..", "fixtures", "opencode", "screens", `${name}.txt`), "utf8");
const RECORD = readFileSync(
  join(import.meta.dir, "..", "..", "fixtures", "opencode", "record-turns.jsonl"),
  "utf8",
);
const DB = "/home/u/.local/share/opencode/opencode.db";
const messages = parseRecord(RECORD);
const SESSION = messages[0]?.session ?? "";
const promptOf = (starts: string) =>
  messages.find((m) => m.role === "user" && String(m.parts[0]?.text ?? "").startsWith(starts))?.id ?? "";

/** A fake opencode: Enter records the prompt (the plugin's `prompt`, `busy`), then `idle` after `answerMs`. */
function opencodeTui(world: FakeWorld, name: string, prompt: string, idle: object = {}): void {
  world.tmux.onKeys = (target, keys) => {
    if (target !== name || !keys.includes("Enter")) return;
    const pane = world.tmux.panes.get(name);
    if (!pane) return;
    pane.screen = screen("busy");
    world.hook(
      name,
      { event: "prompt", session: SESSION, message: prompt, root: true },
      { event: "busy", session: SESSION },
    );
    world.clock.at(world.clock.now() + 300, () => {
      pane.screen = screen("interrupted");
      world.hook(name, { event: "idle", session: SESSION, ...idle });
    });
  };
}

function readyWorker(): FakeWorld {
  const world = createFakeWorld();
  addWorker(world, "oc", { provider: "opencode", screen: screen("home") });
  world.hook("oc", { event: "ready", db: DB, pid: 1 });
  world.files.set(DB, RECORD);
  return world;
}

describe("opencode through the operations", () => {
  test("spawn is ready on the home screen and the plugin's ready record", async () => {
    const world = createFakeWorld();
    world.tmux.onNewSession = (session) => {
      Object.assign(world.tmux.panes.get(session.name) ?? {}, { screen: screen("home") });
      world.hook(session.name, { event: "ready", db: DB, pid: 7 });
    };
    const result = await spawnWorker(world.deps, { name: "oc", provider: "opencode" });
    expect(result).toMatchObject({ provider: "opencode", state: "ready" });
    const started = world.tmux.started.at(-1);
    expect(started?.command.at(-1)).toBe("/usr/bin/opencode");
    expect(started?.bufferContent).toContain(
      "export OPENCODE_CONFIG='/state/sessions/oc/opencode/opencode.json'\n",
    );
    expect(started?.bufferContent).toContain(
      "export UMBEL_OPENCODE_EVENTS='/state/sessions/oc/events/hooks.jsonl'\n",
    );
  });

  test("send proves delivery by the prompt record; wait stops on idle with the record's answer; read", async () => {
    const world = readyWorker();
    const id = promptOf("stub:write");
    opencodeTui(world, "oc", id);
    const sent = await sendPrompt(world.deps, { name: "oc", prompt: "stub:write" });
    expect(sent).toMatchObject({ promptId: id, enters: 1 });
    expect(world.tmux.calls).toContain("send-keys End S-Home BSpace+paste-buffer");
    const outcome = await waitForTurn(world.deps, { name: "oc", after: sent.baseline, timeout: 10_000 });
    expect(outcome).toMatchObject({ reason: "stop", evidence: { promptId: id } });
    expect(String(outcome.evidence.message)).toStartWith("STUB-TOOL-RESULT");
    const read = await readAnswer(world.deps, { name: "oc" });
    expect(read).toMatchObject({
      isError: false,
      assistantMessages: 2,
      transcriptPath: DB,
      sessionId: SESSION,
    });
    expect(read.text).toStartWith("STUB-TOOL-RESULT");
  });

  test("an idle with an APIError is provider-error with its message", async () => {
    const world = readyWorker();
    opencodeTui(world, "oc", promptOf("stub:error 401"), {
      error: { name: "APIError", message: "stub error 401" },
    });
    const sent = await sendPrompt(world.deps, { name: "oc", prompt: "x" });
    const outcome = await waitForTurn(world.deps, { name: "oc", after: sent.baseline, timeout: 10_000 });
    expect(outcome).toMatchObject({
      reason: "provider-error",
      evidence: { error: "APIError", message: "stub error 401" },
    });
    expect(await readAnswer(world.deps, { name: "oc" })).toMatchObject({
      isError: true,
      text: "stub error 401",
    });
  });

  test("a pane that lags the plugin's events (the last turn's idle footer) is busy to status and send", async () => {
    // Measured on 1.18.33 under load: the plugin's `prompt` and `busy` came while the pane still
    // showed the previous turn's idle screen (test/fixtures/opencode/screens/lagging.txt).
    const world = readyWorker();
    world.hook(
      "oc",
      { event: "prompt", session: SESSION, message: promptOf("first"), root: true },
      { event: "busy", session: SESSION },
    );
    const pane = world.tmux.panes.get("oc");
    if (pane) pane.screen = screen("lagging");
    expect((await statusOf(world.deps, "oc")).state).toBe("busy");
    const sent = sendPrompt(world.deps, { name: "oc", prompt: "next" });
    expect(sent).rejects.toMatchObject({ name: "WorkerBusyError" });
    await sent.catch(() => undefined);
    expect(world.tmux.calls.some((c) => c.startsWith("paste"))).toBe(false);
  });

  test("send right after a turn ended waits for a pane still drawing it busy (seconds behind on loaded cores)", async () => {
    const world = readyWorker();
    world.hook(
      "oc",
      { event: "prompt", session: SESSION, message: promptOf("first"), root: true },
      { event: "busy", session: SESSION },
      { event: "idle", session: SESSION },
    );
    const pane = world.tmux.panes.get("oc");
    if (pane) pane.screen = screen("busy");
    world.clock.at(world.clock.now() + 5000, () => {
      if (pane) pane.screen = screen("interrupted");
    });
    const id = promptOf("stub:write");
    opencodeTui(world, "oc", id);
    expect(await sendPrompt(world.deps, { name: "oc", prompt: "next" })).toMatchObject({ promptId: id });
  });
});
