import { describe, expect, test } from "bun:test";
import { PolicyFile } from "../../../src/core/fleet/policy/rules.ts";
import { spawnWorker } from "../../../src/operations/spawn/spawn.ts";
import { waitForTurn } from "../../../src/operations/wait/wait.ts";
import { captureScreen } from "../../../src/operations/worker/capture.ts";
import { sendKeys } from "../../../src/operations/worker/keys.ts";
import { killWorker, pruneWorkers } from "../../../src/operations/worker/kill.ts";
import { streamLogs } from "../../../src/operations/worker/logs.ts";
import { readAnswer } from "../../../src/operations/worker/read.ts";
import { sendPrompt } from "../../../src/operations/worker/send.ts";
import { listWorkers, statusOf } from "../../../src/operations/worker/status.ts";
import { BUSY, IDLE, PERMISSION, TRUST } from "../../fixtures/claude-screens.ts";

const TRUSTED = TRUST.replace("❯ No, exit", "  No, exit").replace("   Yes, I trust", " ❯ Yes, I trust");

import { addWorker, createFakeWorld, type FakeWorld } from "../../helpers/fake-deps.ts";

/** Every operation on in-memory ports and a virtual clock: no tmux, no files, no real time. */

const ev = (name: string, extra: object = {}) => ({ hook_event_name: name, session_id: "S", ...extra });
const START = ev("SessionStart", { transcript_path: "/t/s.jsonl" });

/** A fake claude TUI: the prompt is taken on Enter (UserPromptSubmit), and answered after `answerMs`. */
function claudeTui(world: FakeWorld, name: string, answerMs: number | null = 500): void {
  world.tmux.onKeys = (target, keys) => {
    if (target !== name || !keys.includes("Enter")) return;
    const pane = world.tmux.panes.get(name);
    if (!pane || pane.screen !== IDLE) return;
    pane.screen = BUSY;
    world.hook(
      name,
      ev("UserPromptSubmit", { prompt_id: "p1", prompt: world.tmux.pasted.at(-1)?.text ?? "" }),
    );
    if (answerMs === null) return;
    world.clock.at(world.clock.now() + answerMs, () => {
      pane.screen = IDLE;
      world.hook(name, ev("Stop", { prompt_id: "p1", last_assistant_message: "the answer" }));
    });
  };
}

function setScreen(world: FakeWorld, name: string, screen: string): void {
  Object.assign(world.tmux.panes.get(name) ?? {}, { screen });
}

function readyWorker(screen = IDLE): FakeWorld {
  const world = createFakeWorld();
  addWorker(world, "w1", { screen });
  world.hook("w1", START);
  return world;
}

describe("spawn (in memory)", () => {
  test("claims the name, starts one session, answers the trust dialog, returns ready", async () => {
    const world = createFakeWorld();
    world.tmux.onNewSession = ({ name }) => {
      const pane = world.tmux.panes.get(name);
      if (pane) pane.screen = TRUST;
      world.tmux.onKeys = (_n, keys) => {
        if (!pane) return;
        if (keys.includes("Down")) pane.screen = TRUSTED;
        if (keys.includes("Enter") && pane.screen === TRUSTED) {
          pane.screen = IDLE;
          world.hook(name, START);
        }
      };
    };
    const result = await spawnWorker(world.deps, { name: "w1", provider: "claude" });
    expect(result).toMatchObject({ name: "w1", state: "ready", dialogsAnswered: ["trust"] });
    // What was answered, and where claude keeps it: spawn's trust lasts, as the user's own answer.
    expect(result.dialogs).toEqual([
      {
        dialog: "trust",
        answer: "Yes, I trust this folder",
        folders: ["/tmp/project"],
        lasting: true,
        record: "/home/u/.claude.json",
      },
    ]);
    expect(world.tmux.started[0]?.bufferContent).not.toContain("CLAUDE_CODE_SANDBOXED");
    expect(world.tmux.started).toHaveLength(1);
    expect(world.sessions.get("w1")?.meta?.state).toBe("ready");
    // The env travels in the buffer, never on the command line.
    expect(world.tmux.started[0]?.command.join(" ")).not.toContain("PATH=");
  });

  test("session-only trust (-p): claude is told so, and a trust question it would keep is refused", async () => {
    const world = createFakeWorld();
    world.tmux.onNewSession = ({ name }) =>
      Object.assign(world.tmux.panes.get(name) ?? {}, { screen: TRUST });
    await expect(
      spawnWorker(world.deps, { name: "w1", provider: "claude" }, { sessionTrust: true }),
    ).rejects.toMatchObject({ code: "input", data: { path: "/tmp/project", dialog: "trust" } });
    expect(world.tmux.started[0]?.bufferContent).toContain("CLAUDE_CODE_SANDBOXED='1'");
    expect(world.tmux.calls.filter((c) => c.startsWith("send-keys"))).toEqual([]);
    expect(world.sessions.has("w1")).toBe(false);
  });

  test("--non-interactive (umbel -p): claude -p's default mode, every ask denied by the worker's hook", async () => {
    const world = createFakeWorld();
    world.tmux.onNewSession = ({ name }) => {
      setScreen(world, name, IDLE);
      world.hook(name, START);
    };
    await spawnWorker(world.deps, { name: "w1", provider: "claude", nonInteractive: true, allow: ["Read"] });
    const argv = world.tmux.started[0]?.command ?? [];
    expect(argv[argv.indexOf("--permission-mode") + 1]).toBe("default");
    const files = world.sessions.get("w1")?.files;
    const policy = PolicyFile.parse(JSON.parse(files?.get("policy.json") ?? "null"));
    expect(policy.rules.map((r) => [r.verdict, r.event, r.tool])).toEqual([
      ["allow", "PermissionRequest", "Read"],
      ["deny", "PermissionRequest", "*"],
    ]);
    // One hook line: the hook starts umbel for a PermissionRequest of any tool, for nothing else.
    expect((files?.get("policy.tsv") ?? "").split("\n").map((line) => line.split("\t").slice(0, 2))).toEqual([
      ["PermissionRequest", "."],
      [""],
    ]);
    expect(files?.get("policy.cmd")).toContain("__policy");
    expect(world.sessions.get("w1")?.meta).toMatchObject({ nonInteractive: true });
    // spawn without it keeps the TUI's own mode (claude 2.1.332: auto) and asks.
    await spawnWorker(world.deps, { name: "w2", provider: "claude" });
    expect(world.tmux.started[1]?.command).not.toContain("--permission-mode");
    expect(world.sessions.get("w2")?.files?.get("policy.tsv")).toBeUndefined();
    expect(world.sessions.get("w2")?.files?.get("policy.json")).toBeUndefined();
  });

  test("a cwd that is / (or links to it) is never trusted on the user's behalf", async () => {
    const world = createFakeWorld();
    world.dirs.add("/link");
    world.deps.files.realpath = async (path) => (path === "/link" ? "/" : path);
    world.tmux.onNewSession = ({ name }) =>
      Object.assign(world.tmux.panes.get(name) ?? {}, { screen: TRUST });
    await expect(
      spawnWorker(world.deps, { name: "w1", provider: "claude", cwd: "/link" }),
    ).rejects.toMatchObject({
      code: "usage",
      data: { path: "/" },
    });
    expect(world.tmux.calls.filter((c) => c.startsWith("send-keys"))).toEqual([]);
    expect(world.sessions.has("w1")).toBe(false);
  });

  test("a cwd that is not a directory is refused before anything is made", async () => {
    const world = createFakeWorld();
    await expect(
      spawnWorker(world.deps, { name: "w1", provider: "claude", cwd: "/nope" }),
    ).rejects.toMatchObject({
      code: "usage",
    });
    expect(world.sessions.size).toBe(0);
    expect(world.tmux.calls).toEqual([]);
  });

  test("a CLI that dies at start is reported with its status, and everything is unwound", async () => {
    const world = createFakeWorld();
    world.tmux.onNewSession = ({ name }) => {
      const pane = world.tmux.panes.get(name);
      if (pane) Object.assign(pane, { screen: "Error: unknown option\n", dead: true, deadStatus: 2 });
    };
    await expect(spawnWorker(world.deps, { name: "w1", provider: "claude" })).rejects.toMatchObject({
      code: "spawn-failed",
      message: "Claude Code exited during startup with status 2:\nError: unknown option",
    });
    expect(world.sessions.has("w1")).toBe(false);
    expect(world.tmux.panes.has("w1")).toBe(false);
  });
});

describe("send → wait → read (in memory)", () => {
  test("a turn: the baseline, stop, and the hook's answer", async () => {
    const world = readyWorker();
    claudeTui(world, "w1");
    const sent = await sendPrompt(world.deps, { name: "w1", prompt: "hi" });
    expect(sent).toMatchObject({ baseline: 1, promptId: "p1", enters: 1 });
    expect(world.tmux.pasted).toEqual([{ name: "w1", text: "hi" }]);
    const outcome = await waitForTurn(world.deps, { name: "w1", after: sent.baseline });
    expect(outcome).toMatchObject({ reason: "stop", exitCode: 0, evidence: { message: "the answer" } });
    expect((await readAnswer(world.deps, { name: "w1", after: sent.baseline })).text).toBe("the answer");
  });

  test("two concurrent sends to one idle worker: one prompt submitted, the other refused busy (4)", async () => {
    const world = readyWorker();
    claudeTui(world, "w1", null);
    const results = await Promise.allSettled([
      sendPrompt(world.deps, { name: "w1", prompt: "A1" }),
      sendPrompt(world.deps, { name: "w1", prompt: "B1" }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
    const refused = results.find((r) => r.status === "rejected");
    expect(refused?.status === "rejected" ? refused.reason : null).toMatchObject({ code: "busy" });
    expect(world.tmux.pasted).toHaveLength(1);
  });

  test("send to a busy worker is refused (4) and types nothing", async () => {
    const world = readyWorker(BUSY);
    world.hook("w1", ev("UserPromptSubmit", { prompt_id: "p0", prompt: "x" }));
    await expect(sendPrompt(world.deps, { name: "w1", prompt: "hi" })).rejects.toMatchObject({
      code: "busy",
    });
    expect(world.tmux.pasted).toEqual([]);
  });

  test("send after a turn ended waits through its lagging busy frame and then a redraw's unknown one", async () => {
    // gemini on a loaded CI: the Stop is in, the pane still drew the turn, then a frame mid-redraw
    // (its old prompt alone, read unknown), and only then the composer; send refused at the second.
    const world = readyWorker(BUSY);
    world.hook(
      "w1",
      ev("UserPromptSubmit", { prompt_id: "p0", prompt: "say hello?" }),
      ev("Stop", { prompt_id: "p0", last_assistant_message: "hello" }),
    );
    world.clock.at(world.clock.now() + 1000, () => setScreen(world, "w1", " > say hello?"));
    world.clock.at(world.clock.now() + 2000, () => setScreen(world, "w1", IDLE));
    claudeTui(world, "w1");
    expect(await sendPrompt(world.deps, { name: "w1", prompt: "hi" })).toMatchObject({ promptId: "p1" });
  });

  test("send to a worker showing a permission prompt says what it shows, in English (4)", async () => {
    const world = readyWorker(PERMISSION);
    await expect(sendPrompt(world.deps, { name: "w1", prompt: "hi" })).rejects.toMatchObject({
      code: "busy",
      message: "worker w1 shows an input screen; wait for it before sending",
    });
    expect(world.tmux.pasted).toEqual([]);
  });

  test("a prompt never taken: Enter pressed up to 4 times, then not-delivered (1), the worker alive", async () => {
    const world = readyWorker();
    await expect(sendPrompt(world.deps, { name: "w1", prompt: "hi" })).rejects.toMatchObject({
      code: "not-delivered",
    });
    expect(world.tmux.calls.filter((c) => c === "send-keys Enter")).toHaveLength(4);
    expect(world.tmux.panes.has("w1")).toBe(true);
  });

  test("wait on a worker never sent a prompt: no-turn (5), never a stop", async () => {
    const world = readyWorker();
    await expect(waitForTurn(world.deps, { name: "w1" })).rejects.toMatchObject({
      code: "no-turn",
      exitCode: 5,
      name: "NoTurnError",
    });
  });

  test("wait: a 30-minute timeout runs on the virtual clock", async () => {
    const world = readyWorker(BUSY);
    world.hook("w1", ev("UserPromptSubmit", { prompt_id: "p0", prompt: "x" }));
    const outcome = await waitForTurn(world.deps, { name: "w1", after: 1, timeout: 30 * 60_000 });
    expect(outcome).toMatchObject({ reason: "timeout", exitCode: 124 });
    expect(outcome.elapsedMs).toBeGreaterThanOrEqual(30 * 60_000);
  });

  test("wait: input (126) with the prompt as evidence", async () => {
    const world = readyWorker(PERMISSION);
    world.hook(
      "w1",
      ev("UserPromptSubmit", { prompt_id: "p0", prompt: "x" }),
      ev("PermissionRequest", { tool_name: "Bash", tool_input: { command: "rm x" } }),
    );
    const outcome = await waitForTurn(world.deps, { name: "w1", after: 1 });
    expect(outcome).toMatchObject({ reason: "input", evidence: { prompt: "Bash: rm x" } });
    expect(outcome.evidence.screen).toContain("Do you want to proceed?");
  });

  test("wait: a tmux that never answers cannot stretch the deadline", async () => {
    const world = readyWorker(BUSY);
    world.hook("w1", ev("UserPromptSubmit", { prompt_id: "p0", prompt: "x" }));
    world.tmux.hang = "forever";
    const outcome = await waitForTurn(world.deps, { name: "w1", after: 1, timeout: 5000 });
    expect(outcome.reason).toBe("timeout");
    expect(outcome.elapsedMs).toBeLessThanOrEqual(5110);
  });

  test("read: the transcript's answer when the hook carried none", async () => {
    const world = readyWorker();
    world.hook(
      "w1",
      ev("UserPromptSubmit", { prompt_id: "p1", prompt: "hi" }),
      ev("Stop", { prompt_id: "p1" }),
    );
    world.files.set(
      "/t/s.jsonl",
      [
        { type: "user", promptId: "p1", message: { role: "user", content: "hi" } },
        {
          type: "assistant",
          message: { id: "m1", role: "assistant", content: [{ type: "text", text: "from the transcript" }] },
        },
        { type: "system", subtype: "turn_duration" },
      ]
        .map((l) => JSON.stringify(l))
        .join("\n")
        .concat("\n"),
    );
    const read = await readAnswer(world.deps, { name: "w1" });
    expect(read).toMatchObject({ text: "from the transcript", source: "transcript", turn: "stop" });
  });
});

describe("status, ls, kill, prune, capture, keys, logs (in memory)", () => {
  test("status reads idle, busy, needs-input and dead from events, screen and exit record", async () => {
    const world = readyWorker();
    expect((await statusOf(world.deps, "w1")).state).toBe("idle");
    world.hook("w1", ev("UserPromptSubmit", { prompt_id: "p0", prompt: "x" }));
    setScreen(world, "w1", BUSY);
    expect((await statusOf(world.deps, "w1")).state).toBe("busy");
    world.hook("w1", ev("PermissionRequest", { tool_name: "Bash", tool_input: { command: "ls" } }));
    setScreen(world, "w1", PERMISSION);
    expect(await statusOf(world.deps, "w1")).toMatchObject({ state: "needs-input", prompt: "Bash: ls" });
    Object.assign(world.sessions.get("w1") ?? {}, { exit: { exitCode: 0 } });
    Object.assign(world.tmux.panes.get("w1") ?? {}, { dead: true, deadStatus: 0 });
    expect(await statusOf(world.deps, "w1")).toMatchObject({ state: "dead", exit: { exitCode: 0 } });
  });

  test("ls lists every worker; a hung tmux is an error, never an empty fleet", async () => {
    const world = readyWorker();
    addWorker(world, "w2", { screen: IDLE });
    expect((await listWorkers(world.deps)).map((w) => w.name)).toEqual(["w1", "w2"]);
    world.tmux.hang = "timeout";
    await expect(listWorkers(world.deps)).rejects.toMatchObject({ code: "tmux-timeout" });
  });

  test("kill keeps a tombstone with the last screen; prune removes it but never a live worker", async () => {
    const world = readyWorker();
    addWorker(world, "w2", { screen: IDLE });
    expect(await killWorker(world.deps, { name: "w1" })).toEqual({
      name: "w1",
      state: "killed",
      wasAlive: true,
    });
    expect(world.sessions.get("w1")?.lastScreen).toBe(IDLE);
    expect(await captureScreen(world.deps, { name: "w1" })).toMatchObject({
      source: "tombstone",
      screen: IDLE,
    });
    expect(await pruneWorkers(world.deps)).toEqual({ removed: ["w1"], kept: ["w2"] });
    expect(world.sessions.has("w2")).toBe(true);
  });

  test("capture drops the blank lines below the last text; keepBlank keeps the pane's full height", async () => {
    const world = readyWorker("  top\n\n❯ box  \n   \n\n\n");
    expect(await captureScreen(world.deps, { name: "w1" })).toEqual({
      name: "w1",
      screen: "  top\n\n❯ box  \n",
      source: "live",
    });
    expect((await captureScreen(world.deps, { name: "w1", keepBlank: true })).screen).toBe(
      "  top\n\n❯ box  \n   \n\n\n",
    );
    setScreen(world, "w1", "\n\n");
    expect((await captureScreen(world.deps, { name: "w1" })).screen).toBe("");
    await killWorker(world.deps, { name: "w1" });
    Object.assign(world.sessions.get("w1") ?? {}, { lastScreen: "dead\n\n\n" });
    expect(await captureScreen(world.deps, { name: "w1" })).toMatchObject({
      screen: "dead\n",
      source: "tombstone",
    });
  });

  test("keys presses each key in order", async () => {
    const world = readyWorker();
    expect(await sendKeys(world.deps, { name: "w1", keys: ["Down", "Enter"] })).toEqual({
      name: "w1",
      sent: ["Down", "Enter"],
    });
    expect(world.tmux.calls).toContain("send-keys Down");
  });

  test("keys on a prompt returns once the prompt is gone, though the TUI took 2 s to redraw", async () => {
    // lifecycle on a loaded machine: keys 1 came back after its 1 s bound with the answered prompt
    // still drawn, and the wait right after read it as pending (input, 126) instead of the turn.
    const world = readyWorker(PERMISSION);
    const pressed = world.clock.now();
    world.clock.at(pressed + 2000, () => setScreen(world, "w1", IDLE));
    await sendKeys(world.deps, { name: "w1", keys: ["1"] });
    expect(world.clock.now() - pressed).toBeGreaterThanOrEqual(2000);
    expect(world.tmux.panes.get("w1")?.screen).toBe(IDLE);
  });

  test("keys on a prompt: a hook event that the tool ran does not end the wait while the answered prompt is drawn", async () => {
    // answer-race on a loaded machine: the tool's PostToolUse came at once, the redraw ~1 s later;
    // keys returned on the event, and a second `answer allow` read the answered prompt as a new one.
    const world = readyWorker(PERMISSION);
    world.tmux.onKeys = (name, keys) => {
      if (keys.includes("1")) world.hook(name, ev("PostToolUse", { tool_name: "Bash" }));
    };
    const pressed = world.clock.now();
    world.clock.at(pressed + 2000, () => setScreen(world, "w1", IDLE));
    await sendKeys(world.deps, { name: "w1", keys: ["1"] });
    expect(world.clock.now() - pressed).toBeGreaterThanOrEqual(2000);
  });

  test("keys on a prompt: the next prompt's own event ends the wait, though it asks the same", async () => {
    const world = readyWorker(PERMISSION);
    world.tmux.onKeys = (name, keys) => {
      if (keys.includes("1"))
        world.hook(name, ev("PermissionRequest", { tool_name: "Bash", tool_input: { command: "ls" } }));
    };
    const pressed = world.clock.now();
    await sendKeys(world.deps, { name: "w1", keys: ["1"] });
    expect(world.clock.now() - pressed).toBeLessThan(1000);
  });

  test("logs emits the events in order", async () => {
    const world = readyWorker();
    world.hook("w1", ev("UserPromptSubmit", { prompt: "x" }));
    const seen: string[] = [];
    await streamLogs(world.deps, { name: "w1" }, (e) => seen.push(e.name));
    expect(seen).toEqual(["SessionStart", "UserPromptSubmit"]);
  });
});

describe("faults in reads are errors, never 'nothing yet'", () => {
  const denied = Object.assign(new Error("EACCES: permission denied, open '/t/s.jsonl'"), { code: "EACCES" });

  test.each([
    ["status", (w: FakeWorld) => statusOf(w.deps, "w1")],
    ["read", (w: FakeWorld) => readAnswer(w.deps, { name: "w1" })],
  ])("%s: a transcript that cannot be read raises", async (_name, run) => {
    const world = createFakeWorld({});
    addWorker(world, "w1", { provider: "codex", screen: BUSY });
    world.hook("w1", START, ev("UserPromptSubmit", { prompt_id: "p0", prompt: "x" }));
    world.files.set("/t/s.jsonl", "");
    world.deps.files.readText = async () => {
      throw denied;
    };
    await expect(run(world)).rejects.toMatchObject({ code: "EACCES" });
  });

  test("wait: a transcript that cannot be read raises", async () => {
    const world = createFakeWorld({});
    addWorker(world, "w1", { provider: "codex", screen: BUSY });
    world.hook("w1", START, ev("UserPromptSubmit", { prompt_id: "p0", prompt: "x" }));
    world.files.set("/t/s.jsonl", "x");
    world.deps.files.readText = async () => {
      throw denied;
    };
    await expect(waitForTurn(world.deps, { name: "w1", after: 1, timeout: 5000 })).rejects.toMatchObject({
      code: "EACCES",
    });
  });
});

describe("state that contradicts itself is a typed error, never an act on the wrong worker", () => {
  test("a meta.json naming another worker: kill refuses (state error) and the other worker lives", async () => {
    const world = readyWorker();
    addWorker(world, "o2", { screen: IDLE });
    const o1 = world.sessions.get("w1");
    if (o1?.meta) o1.meta = { ...o1.meta, name: "o2" };
    await expect(killWorker(world.deps, { name: "w1" })).rejects.toMatchObject({
      code: "state",
      data: { name: "w1", metaName: "o2" },
    });
    expect(world.tmux.panes.has("o2")).toBe(true);
    expect(world.tmux.calls).not.toContain("kill-session");
  });

  test("a worker left starting by a spawner that died reads as failed, and prune removes it (tmux too)", async () => {
    const world = createFakeWorld();
    addWorker(world, "w1", { screen: TRUST, state: "starting" });
    world.processes.set(777, "boot+7");
    const record = world.sessions.get("w1");
    if (record?.meta) record.meta = { ...record.meta, spawner: { pid: 777, start: "boot+7" } };
    expect((await statusOf(world.deps, "w1")).state).toBe("starting");
    world.processes.delete(777);
    expect(await statusOf(world.deps, "w1")).toMatchObject({ state: "failed", reason: "spawner-gone" });
    await expect(sendPrompt(world.deps, { name: "w1", prompt: "hi" })).rejects.toMatchObject({
      code: "dead",
    });
    expect(await pruneWorkers(world.deps)).toEqual({ removed: ["w1"], kept: [] });
    expect(world.tmux.panes.has("w1")).toBe(false);
  });

  test("a reused pid is not the spawner", async () => {
    const world = createFakeWorld();
    addWorker(world, "w1", { screen: TRUST, state: "starting" });
    world.processes.set(777, "boot+99");
    const record = world.sessions.get("w1");
    if (record?.meta) record.meta = { ...record.meta, spawner: { pid: 777, start: "boot+7" } };
    expect((await statusOf(world.deps, "w1")).state).toBe("failed");
  });

  test("spawn records its spawner while starting and drops it once ready", async () => {
    const world = createFakeWorld();
    let whileStarting: unknown;
    world.tmux.onNewSession = ({ name }) => {
      whileStarting = world.sessions.get(name)?.meta?.spawner;
      Object.assign(world.tmux.panes.get(name) ?? {}, { screen: IDLE });
      world.hook(name, START);
    };
    await spawnWorker(world.deps, { name: "w1", provider: "claude" });
    expect(whileStarting).toEqual({ pid: 4242, start: "boot+42" });
    expect(world.sessions.get("w1")?.meta?.spawner).toBeUndefined();
  });

  test.each([
    ["an empty exit record", { exitCode: -1 }],
    ["an exit record of 0", { exitCode: 0 }],
  ])("prune never removes a live worker beside %s: it is kept, listed as broken", async (_what, exit) => {
    const world = readyWorker();
    Object.assign(world.sessions.get("w1") ?? {}, { exit });
    expect(await pruneWorkers(world.deps)).toMatchObject({
      removed: [],
      kept: ["w1"],
      broken: [{ name: "w1", removed: false, file: "/state/sessions/w1/events/exit.json" }],
    });
    expect(world.sessions.has("w1")).toBe(true);
    expect(world.tmux.panes.has("w1")).toBe(true);
  });

  test("an exit record the pane confirms within a second is a death", async () => {
    const world = readyWorker();
    Object.assign(world.sessions.get("w1") ?? {}, { exit: { exitCode: 0 } });
    world.clock.at(world.clock.now() + 200, () =>
      Object.assign(world.tmux.panes.get("w1") ?? {}, { dead: true }),
    );
    expect(await statusOf(world.deps, "w1")).toMatchObject({ state: "dead", exit: { exitCode: 0 } });
  });
});
