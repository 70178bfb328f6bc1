import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { getProvider } from "../../../src/core/providers/registry.ts";
import type { ReadyConfig } from "../../../src/core/spawn/ready.ts";
import { BUSY, IDLE, TRUST } from "../../fixtures/claude-screens.ts";
import { runReady } from "../../helpers/machine-world.ts";

const claude = getProvider("claude");
const START = { hook_event_name: "SessionStart", session_id: "S", transcript_path: "/t.jsonl" };
const config = (over: Partial<ReadyConfig> = {}): ReadyConfig => ({
  provider: claude,
  name: "w1",
  deadline: 60_000,
  timeoutMs: 60_000,
  untrusted: null,
  ...over,
});
const codexScreen = (name: string) =>
  readFileSync(join(import.meta.dir, "..", "..", "fixtures", "codex", "screens", `${name}.txt`), "utf8");
const LOCKED = codexScreen("thread-locked");
const CODEX_IDLE = codexScreen("ready");
const TRUSTED = TRUST.replace("❯ No, exit", "  No, exit").replace("   Yes, I trust", " ❯ Yes, I trust");

describe("spawn readiness machine", () => {
  test("ready: the idle screen and the SessionStart hook", () => {
    const run = runReady(config(), {
      screens: [
        [0, BUSY],
        [800, IDLE],
      ],
      events: [[900, START]],
    });
    expect(run).toMatchObject({ result: "ready", dialogsAnswered: [] });
    expect(run.at).toBeGreaterThanOrEqual(900);
    expect(run.at).toBeLessThan(1010);
  });

  test("a relaunch in place (failover): only a SessionStart from logFrom on is this CLI's", () => {
    const run = runReady(config({ logFrom: 1 }), {
      screens: [
        [0, BUSY],
        [100, IDLE],
      ],
      events: [
        [0, START],
        [900, START],
      ],
    });
    expect(run).toMatchObject({ result: "ready" });
    expect(run.at).toBeGreaterThanOrEqual(900);
  });

  test("a dialog is answered by its keys no earlier than 300 ms after it appeared", () => {
    const run = runReady(config(), {
      screens: [
        [0, ""],
        [200, TRUST],
      ],
      events: [[1100, START]],
      onKeys: (keys) => (keys[0] === "Down" ? TRUSTED : keys[0] === "Enter" ? IDLE : null),
    });
    expect(run).toMatchObject({ result: "ready", dialogsAnswered: ["trust"] });
    expect(run.keys).toEqual([["Down"], ["Enter"]]);
  });

  test("each dialog answered says what: the option chosen, the folders it trusts, whether it lasts", () => {
    const run = runReady(config(), {
      screens: [[0, TRUST]],
      events: [[5000, START]],
      onKeys: (keys) => (keys[0] === "Down" ? TRUSTED : keys[0] === "Enter" ? IDLE : null),
    });
    expect(run.dialogs).toEqual([
      { dialog: "trust", answer: "Yes, I trust this folder", folders: ["/tmp/project"], lasting: true },
    ]);
  });

  test("a trust question that names no folder (gemini's names the cwd's base name) reports the cwd", () => {
    const asks = {
      ...claude,
      classifyScreen: (screen: string) =>
        screen === "asks"
          ? ({
              kind: "dialog",
              dialog: "trust",
              keys: ["1"],
              grantsTrust: true,
              answer: "Trust folder",
            } as const)
          : claude.classifyScreen(screen),
    };
    const run = runReady(config({ provider: asks, cwd: "/work/p" }), {
      screens: [[0, "asks"]],
      events: [[5000, START]],
      onKeys: () => IDLE,
    });
    expect(run.dialogs).toEqual([
      { dialog: "trust", answer: "Trust folder", folders: ["/work/p"], lasting: false },
    ]);
  });

  test("session-only trust (-p, a spare): a trust answer the CLI would keep is refused, never given", () => {
    const run = runReady(config({ sessionTrust: true }), { screens: [[0, TRUST]] });
    expect(run.keys).toEqual([]);
    expect(run.error).toMatchObject({
      name: "InputRequiredError",
      data: { name: "w1", path: "/tmp/project", dialog: "trust" },
    });
    expect(run.error?.message).toContain("for its own session only");
  });

  test("session-only trust: a trust that lasts only for the session (--add-dir's) is answered", () => {
    const ADD_DIR = TRUST.replace("Accessing workspace:", "Adding a new directory:").replace(
      "Yes, I trust this folder",
      "Yes, add it",
    );
    const run = runReady(config({ sessionTrust: true }), {
      screens: [[0, ADD_DIR]],
      events: [[5000, START]],
      onKeys: (keys) =>
        keys[0] === "Down" ? ADD_DIR.replace("❯ No", "  No").replace("   Yes", " ❯ Yes") : IDLE,
    });
    expect(run.result).toBe("ready");
    expect(run.dialogs).toEqual([
      { dialog: "add-dir", answer: "Yes, add it", folders: ["/tmp/project"], lasting: false },
    ]);
  });

  test("keys go one at a time, re-read after each: Enter only once the highlight is on the answer", () => {
    const run = runReady(config(), {
      screens: [[0, TRUST]],
      events: [[5000, START]],
      onKeys: (keys, screen) =>
        keys[0] === "Down" ? TRUSTED : keys[0] === "Enter" && screen === TRUSTED ? IDLE : null,
    });
    expect(run).toMatchObject({ result: "ready", dialogsAnswered: ["trust"] });
    expect(run.keys).toEqual([["Down"], ["Enter"]]);
  });

  test("Enter never follows a highlight the dialog resets after umbel read it (claude's settle remount)", () => {
    // claude 2.1.332 remounts its trust dialog 100-250 ms (load 14) after it appears, which puts
    // the highlight back on "No, exit"; a move made before that is undone, with no key pressed. On
    // loaded cores each tmux call takes ~200 ms: the capture that saw "Yes" is old by the time Enter lands.
    const enteredOn: string[] = [];
    let settled = false;
    const run = runReady(config(), {
      screens: [[0, TRUST]],
      events: [[9000, START]],
      tmuxMs: 200,
      onKeys: (keys, screen) => {
        if (keys[0] === "Enter") {
          enteredOn.push(screen === TRUSTED ? "Yes" : "No, exit");
          return screen === TRUSTED ? IDLE : "";
        }
        if (keys[0] !== "Down") return null;
        if (settled) return TRUSTED;
        settled = true;
        return [
          [0, TRUSTED],
          [150, TRUST],
        ];
      },
    });
    expect(enteredOn).toEqual(["Yes"]);
    expect(run).toMatchObject({ result: "ready", dialogsAnswered: ["trust"] });
    expect(run.keys).toEqual([["Down"], ["Down"], ["Enter"]]);
  });

  test("a move the TUI drops under load is never followed by Enter on the wrong option", () => {
    const run = runReady(config(), { screens: [[0, TRUST]] });
    expect(run.keys.flat()).not.toContain("Enter");
    expect(run.error).toMatchObject({
      name: "SpawnFailedError",
      message: "the trust dialog did not accept umbel's answer",
    });
  });

  test.each([
    ["/", "/"],
    ["the home directory", "/home/u"],
  ])("a trust question for %s is refused, never answered on the user's behalf", (_what, path) => {
    const run = runReady(config({ untrusted: path }), { screens: [[0, TRUST]] });
    expect(run.keys).toEqual([]);
    expect(run.error).toMatchObject({ name: "UsageError", data: { path } });
    expect(run.error?.message).toContain("by hand");
  });

  test("a dialog that stays after three answers (1.5 s apart) fails the spawn", () => {
    const run = runReady(config(), { screens: [[0, TRUSTED]] });
    expect(run.keys).toEqual([["Enter"], ["Enter"], ["Enter"]]);
    expect(run.error).toMatchObject({
      name: "SpawnFailedError",
      message: "the trust dialog did not accept umbel's answer",
    });
    expect(run.at).toBeGreaterThanOrEqual(300 + 3 * 1500);
  });

  test("a fatal dialog fails at once with its screen", () => {
    const fatal = {
      ...claude,
      classifyScreen: () => ({ kind: "dialog" as const, dialog: "x", keys: [], fatal: "Settings Warning" }),
    };
    const run = runReady(config({ provider: fatal }), { screens: [[0, "bad settings"]] });
    expect(run.error?.message).toBe("Settings Warning:\nbad settings");
  });

  test("codex's thread lock: r once a second for 10 s (a killed holder may still be exiting), then it fails", () => {
    const run = runReady(config({ provider: getProvider("codex") }), { screens: [[0, LOCKED]] });
    expect(run.keys.length).toBeGreaterThan(0);
    expect(run.keys.every((k) => k.length === 1 && k[0] === "r")).toBe(true);
    expect(run.error?.message).toStartWith(
      "the codex session is open in another codex process; close that one first (r pressed for 10 s)",
    );
    expect(run.at).toBeGreaterThanOrEqual(10_000);
    expect(run.at).toBeLessThan(12_000);
  });

  test("codex's thread lock that clears: the first r after the holder exited makes it ready", () => {
    let presses = 0;
    const run = runReady(config({ provider: getProvider("codex") }), {
      screens: [[0, LOCKED]],
      // The holder exits between the first and the second r.
      onKeys: (keys) => (keys[0] === "r" && ++presses === 2 ? CODEX_IDLE : null),
    });
    expect(run).toMatchObject({ result: "ready" });
    expect(run.keys).toEqual([["r"], ["r"]]);
  });

  test("a sign-in screen is refused with input-required", () => {
    const signIn = { ...claude, classifyScreen: () => ({ kind: "sign-in" as const, text: "log in" }) };
    const run = runReady(config({ provider: signIn }), { screens: [[0, "x"]] });
    expect(run.error).toMatchObject({ name: "InputRequiredError", data: { name: "w1", screen: "log in" } });
  });

  test("a CLI that exits during startup: its status from the exit record, and its last screen", () => {
    const run = runReady(config(), { screens: [[0, "Error: bad flag\n"]], exit: [500, { exitCode: 3 }] });
    expect(run.error).toMatchObject({
      name: "SpawnFailedError",
      message: "Claude Code exited during startup with status 3:\nError: bad flag",
      data: { exitCode: 3 },
    });
  });

  test("a dead pane whose status tmux has not filled yet: the status comes from exit.json", () => {
    const run = runReady(config(), {
      screens: [[0, "bye"]],
      pane: [[300, { dead: true, deadStatus: null, pid: null }]],
      exit: [310, { exitCode: 7 }],
    });
    expect(run.error?.message).toBe("Claude Code exited during startup with status 7:\nbye");
  });

  test("not ready within the start timeout", () => {
    const run = runReady(config({ deadline: 3000, timeoutMs: 3000 }), { screens: [[0, BUSY]] });
    expect(run.error?.message).toBe("Claude Code was not ready within 3000 ms");
    expect(run.at).toBeGreaterThanOrEqual(3000);
    expect(run.at).toBeLessThan(3200);
  });

  test("ready but the hooks never fire: a failure after 10 s, not a ready worker", () => {
    const run = runReady(config(), { screens: [[0, IDLE]] });
    expect(run.error?.message).toBe("Claude Code is up but its hooks never fired; umbel cannot follow it");
  });

  test("a CLI whose SessionStart comes with the first prompt (codex) is ready on its screen alone", () => {
    const run = runReady(config({ provider: { ...claude, sessionStartAtLaunch: false } }), {
      screens: [[0, IDLE]],
    });
    expect(run.result).toBe("ready");
  });

  test("an abort (SIGINT) fails the spawn as aborted", () => {
    const run = runReady(config(), { screens: [[0, TRUST]], abortAt: 250 });
    expect(run.error).toMatchObject({
      name: "AbortedError",
      message: "spawn was interrupted; the worker was removed",
    });
  });
});
