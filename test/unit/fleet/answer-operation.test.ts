import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { answerPrompt } from "../../../src/operations/fleet/answer.ts";
import { waitForTurn } from "../../../src/operations/wait/wait.ts";
import { BUSY, IDLE, PERMISSION } from "../../fixtures/claude-screens.ts";
import { addWorker, createFakeWorld, type FakeWorld } from "../../helpers/fake-deps.ts";
import type { FakePane } from "../../helpers/fake-tmux.ts";

/** answer on in-memory ports: the prompt wait reported, answered by meaning, race-safe by its id. */

const ev = (name: string, extra: object = {}) => ({ hook_event_name: name, session_id: "S", ...extra });
const asking = (command: string) => ev("PermissionRequest", { tool_name: "Bash", tool_input: { command } });
const pressed = (world: FakeWorld) => world.tmux.calls.filter((c) => c.startsWith("send-keys"));

/** A claude worker whose turn asks to run `echo hi > x.txt` (fixtures/claude-screens.ts PERMISSION). */
function askingWorker(): FakeWorld {
  const world = createFakeWorld();
  addWorker(world, "w1", { screen: PERMISSION });
  world.hook(
    "w1",
    ev("SessionStart", { transcript_path: "/t/s.jsonl" }),
    ev("UserPromptSubmit", { prompt_id: "p1", prompt: "go" }),
    asking("echo hi > x.txt"),
  );
  // The TUI: a digit picks its option and the tool runs (busy); Escape or 4 interrupts (idle).
  world.tmux.onKeys = (_name, keys) => {
    const pane = world.tmux.panes.get("w1");
    if (pane && pane.screen === PERMISSION) pane.screen = ["1", "2"].includes(keys[0] ?? "") ? BUSY : IDLE;
  };
  return world;
}

describe("answer (in memory)", () => {
  test("wait's input evidence carries the prompt's id; answer allow with it presses 1 and says which", async () => {
    const world = askingWorker();
    const outcome = await waitForTurn(world.deps, { name: "w1", after: 1 });
    expect(outcome).toMatchObject({ reason: "input", evidence: { prompt: "Bash: echo hi > x.txt" } });
    const inputId = outcome.evidence.inputId;
    expect(inputId).toMatch(/^in-[0-9a-f]{12}$/);
    const answered = await answerPrompt(world.deps, { name: "w1", choice: "allow", inputId: inputId ?? "" });
    expect(answered).toMatchObject({ name: "w1", inputId, option: { number: 1, label: "Yes" }, keys: ["1"] });
    expect(answered.prompt).toContain("Do you want to proceed?");
    expect(pressed(world)).toEqual(["send-keys 1"]);
  });

  test("a stale id (another prompt took its place) is refused, exit 4, and nothing is pressed", async () => {
    const world = askingWorker();
    const first = (await waitForTurn(world.deps, { name: "w1", after: 1 })).evidence.inputId ?? "";
    world.hook("w1", asking("echo hi > x.txt"));
    const error = await answerPrompt(world.deps, { name: "w1", choice: "allow", inputId: first }).catch(
      (e) => e,
    );
    expect(error).toMatchObject({ code: "prompt-gone", exitCode: 4, data: { inputId: first } });
    expect(error.data.current).toMatch(/^in-/);
    expect(error.data.current).not.toBe(first);
    expect(pressed(world)).toEqual([]);
  });

  test("an id whose prompt is no longer on screen (already answered) is refused; nothing pressed", async () => {
    const world = askingWorker();
    const inputId = (await waitForTurn(world.deps, { name: "w1", after: 1 })).evidence.inputId ?? "";
    Object.assign(world.tmux.panes.get("w1") ?? {}, { screen: BUSY });
    await expect(answerPrompt(world.deps, { name: "w1", choice: "deny", inputId })).rejects.toMatchObject({
      code: "prompt-gone",
      exitCode: 4,
      data: { current: null },
    });
    expect(pressed(world)).toEqual([]);
  });

  test("no prompt on screen: no-prompt (4), nothing pressed", async () => {
    const world = askingWorker();
    Object.assign(world.tmux.panes.get("w1") ?? {}, { screen: IDLE });
    await expect(answerPrompt(world.deps, { name: "w1", choice: "allow" })).rejects.toMatchObject({
      code: "no-prompt",
      exitCode: 4,
    });
    expect(pressed(world)).toEqual([]);
  });

  test("a choice the menu does not have is a usage error (2) naming the options; nothing pressed", async () => {
    const world = askingWorker();
    await expect(answerPrompt(world.deps, { name: "w1", choice: "9" })).rejects.toMatchObject({
      code: "usage",
      exitCode: 2,
    });
    expect(pressed(world)).toEqual([]);
  });

  test("deny without an id answers what the screen shows; wait then ends the turn as interrupted", async () => {
    const world = askingWorker();
    const answered = await answerPrompt(world.deps, { name: "w1", choice: "deny" });
    expect(answered).toMatchObject({ option: { label: "No" }, keys: ["4"] });
    const outcome = await waitForTurn(world.deps, { name: "w1", after: 1 });
    expect(outcome).toMatchObject({ reason: "stop", evidence: { interrupted: true } });
  });

  test("a dead worker is refused (125)", async () => {
    const world = askingWorker();
    Object.assign(world.tmux.panes.get("w1") ?? {}, { dead: true, deadStatus: 1 });
    await expect(answerPrompt(world.deps, { name: "w1", choice: "allow" })).rejects.toMatchObject({
      code: "dead",
      exitCode: 125,
    });
  });

  test("callers at once on one id: one presses, the others find it answered (4) and press nothing", async () => {
    const world = askingWorker();
    const inputId = (await waitForTurn(world.deps, { name: "w1", after: 1 })).evidence.inputId ?? "";
    const runs = await Promise.allSettled(
      ["allow", "deny", "allow"].map((choice) => answerPrompt(world.deps, { name: "w1", choice, inputId })),
    );
    expect(runs.filter((r) => r.status === "fulfilled").length).toBe(1);
    for (const r of runs.filter((r) => r.status === "rejected"))
      expect(r.reason).toMatchObject({ code: "prompt-gone", exitCode: 4, data: { inputId } });
    expect(pressed(world).length).toBe(1);
  });

  test("a key the screen has not shown yet (a slow TUI): the same id is answered, nothing pressed again", async () => {
    const world = askingWorker();
    world.tmux.onKeys = () => undefined;
    const inputId = (await waitForTurn(world.deps, { name: "w1", after: 1 })).evidence.inputId ?? "";
    await answerPrompt(world.deps, { name: "w1", choice: "allow", inputId });
    const again = await answerPrompt(world.deps, { name: "w1", choice: "deny", inputId }).catch((e) => e);
    expect(again).toMatchObject({
      code: "prompt-gone",
      exitCode: 4,
      data: { answered: { choice: "allow" } },
    });
    expect(again.message).toContain("another caller answered it allow");
    // Without an id: that prompt is the one already answered, so nothing is pressed either.
    await expect(answerPrompt(world.deps, { name: "w1", choice: "allow" })).rejects.toMatchObject({
      code: "no-prompt",
      exitCode: 4,
    });
    expect(pressed(world)).toEqual(["send-keys 1"]);
    // A new prompt (a new event line) has a new id and is answered as usual.
    world.hook("w1", asking("echo hi > x.txt"));
    await answerPrompt(world.deps, { name: "w1", choice: "allow" });
    expect(pressed(world)).toEqual(["send-keys 1", "send-keys 1"]);
  });

  test("an answer lock a live caller holds: the next waits for it, then presses nothing when it stays", async () => {
    const world = askingWorker();
    const held = await world.deps.store.lock("w1", "answer");
    const error = await answerPrompt(world.deps, { name: "w1", choice: "allow" }).catch((e) => e);
    expect(error).toMatchObject({ code: "busy", exitCode: 4 });
    expect(pressed(world)).toEqual([]);
    await held?.release();
  });

  test("the same prompt announced again (claude's permission_prompt Notification ~1 s later) keeps its id", async () => {
    const world = askingWorker();
    const outcome = await waitForTurn(world.deps, { name: "w1", after: 1 });
    const inputId = outcome.evidence.inputId ?? "";
    world.hook(
      "w1",
      ev("Notification", { message: "Claude needs your permission", notification_type: "permission_prompt" }),
    );
    const answered = await answerPrompt(world.deps, { name: "w1", choice: "allow", inputId });
    expect(answered).toMatchObject({ inputId, keys: ["1"] });
    expect(pressed(world)).toEqual(["send-keys 1"]);
  });
});

describe("answer on opencode (in memory): the one-row box, its highlight read from the colours", () => {
  const oc = (file: string) =>
    readFileSync(join(import.meta.dir, "..", "..", "fixtures", "opencode", "screens", file), "utf8");
  const PLAIN = oc("permission.txt");
  const BOX = { screen: PLAIN, ansi: oc("permission-once.ansi") };
  const CONFIRM = { screen: oc("permission-confirm.txt"), ansi: oc("permission-confirm.ansi") };

  /** An opencode worker asking for /tmp/oc; `tui` says what each key does to its pane. */
  function askingOpencode(tui: (keys: readonly string[]) => Partial<FakePane> | null): FakeWorld {
    const world = createFakeWorld();
    addWorker(world, "oc", { provider: "opencode" });
    Object.assign(world.tmux.panes.get("oc") ?? {}, BOX);
    world.hook(
      "oc",
      { event: "ready", db: "/db", pid: 1 },
      { event: "prompt", session: "ses_1", message: "msg_1", root: true },
      { event: "busy", session: "ses_1" },
      {
        event: "permission",
        session: "ses_1",
        id: "per_1",
        permission: "external_directory",
        patterns: ["/tmp/oc/*"],
        metadata: { parentDir: "/tmp/oc" },
        root: true,
      },
    );
    world.tmux.onKeys = (_name, keys) => {
      const next = tui(keys);
      if (next) Object.assign(world.tmux.panes.get("oc") ?? {}, { ansi: undefined, ...next });
    };
    return world;
  }

  test("allow presses Enter on Allow once, read from the escaped screen", async () => {
    const world = askingOpencode((keys) => (keys[0] === "Enter" ? { screen: BUSY } : null));
    const answered = await answerPrompt(world.deps, { name: "oc", choice: "allow" });
    expect(answered).toMatchObject({ option: { number: 1, label: "Allow once" }, keys: ["Enter"] });
    expect(answered.inputId).toMatch(/^in-/);
    expect(world.tmux.calls).toContain("capture-pane -e");
    expect(pressed(world)).toEqual(["send-keys Enter"]);
  });

  test("always: Right Enter opens the confirmation, whose Confirm is then pressed", async () => {
    let stage = "box";
    const world = askingOpencode((keys) => {
      if (stage === "box" && keys[0] === "Right") return { ansi: oc("permission-always.ansi") };
      if (keys[0] !== "Enter") return null;
      stage = stage === "box" ? "confirm" : "done";
      return stage === "confirm" ? CONFIRM : { screen: BUSY };
    });
    const answered = await answerPrompt(world.deps, { name: "oc", choice: "always" });
    expect(answered).toMatchObject({ option: { label: "Allow always" }, keys: ["Right", "Enter", "Enter"] });
    expect(pressed(world)).toEqual(["send-keys Right", "send-keys Enter", "send-keys Enter"]);
    expect(stage).toBe("done");
  });

  test("a confirmation that never comes is a failure (1) that says what was pressed", async () => {
    const world = askingOpencode((keys) => (keys[0] === "Enter" ? { screen: BUSY } : null));
    const error = await answerPrompt(world.deps, { name: "oc", choice: "always" }).catch((e) => e);
    expect(error).toMatchObject({ code: "not-delivered", exitCode: 1, data: { keys: ["Right", "Enter"] } });
    expect(error.message).toContain("Confirm");
  });

  test("deny picks Reject (Left wraps round to it); a box with no colours is refused, nothing pressed", async () => {
    const world = askingOpencode((keys) => (keys.includes("Enter") ? { screen: BUSY } : null));
    expect(await answerPrompt(world.deps, { name: "oc", choice: "deny" })).toMatchObject({
      option: { label: "Reject" },
      keys: ["Left", "Enter"],
    });
    const mono = askingOpencode(() => null);
    Object.assign(mono.tmux.panes.get("oc") ?? {}, { ansi: PLAIN });
    await expect(answerPrompt(mono.deps, { name: "oc", choice: "allow" })).rejects.toMatchObject({
      code: "usage",
      message: expect.stringContaining("does not show which option is highlighted"),
    });
    expect(pressed(mono)).toEqual([]);
  });
});
