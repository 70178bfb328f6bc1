// test/fixtures/fake-gemini.sh on real tmux, read only through umbel's pure gemini provider: the
// fake must look to umbel like the real 0.61.0 TUI (test/real/gemini-stub.test.ts runs the same
// provider against the real one).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { assessRetryStall } from "../../src/core/providers/gemini/events.ts";
import { gemini } from "../../src/core/providers/gemini/provider.ts";
import { statusOf } from "../../src/operations/worker/status.ts";
import { driveGemini } from "../helpers/gemini-driver.ts";
import { createGeminiWorld, type GeminiWorld } from "../helpers/gemini-world.ts";
import { eventually } from "../helpers/sandbox.ts";

// Workers on real tmux take seconds a test; bun's default is 5 s (declared here: a preload's
// setDefaultTimeout reaches only the first file of a run, oven-sh/bun#43787).
setDefaultTimeout(60_000);

const FAKE = join(import.meta.dir, "..", "fixtures", "fake-gemini.sh");

describe("fake gemini through the gemini provider", () => {
  let world: GeminiWorld;
  let g: ReturnType<typeof driveGemini>;
  const name = "f1";
  let sessionId = "";

  beforeAll(async () => {
    world = await createGeminiWorld(FAKE, null);
    g = driveGemini(world, name);
    ({ sessionId } = await world.start(name, { model: "gemini-2.5-flash" }));
    await g.until("ready");
    await eventually(() => world.events().some((e) => gemini.interpretEvent(e).kind === "session-start"));
  });
  afterAll(() => world.dispose());

  const ended = (baseline: number) =>
    world
      .events()
      .slice(baseline)
      .some((e) => e.name === "AfterAgent");

  test("the worker is the engine's own: umbel status knows it", async () => {
    expect(await statusOf(world.deps, name)).toMatchObject({
      name,
      provider: "gemini",
      state: "idle",
      sessionId,
    });
  });

  test("a plain turn: BeforeAgent, AfterAgent, the echo in the transcript; ? and ! survive the paste", async () => {
    const prompt = "is this right? yes! ok";
    const { baseline, turnKey } = await g.send(prompt);
    await g.afterAgent(baseline);
    const answer = await g.answer(turnKey);
    expect(answer).toMatchObject({ status: "answered", prompt, sessionId });
    expect(answer.text).toStartWith("FAKE-REPLY len=22 sha=");
  });

  test("an Enter right after the paste is a newline; the next Enter sends", async () => {
    const baseline = world.eventCount();
    await world.tmux.paste(name, "too fast", "umbel-send-fast");
    await world.tmux.sendKeys(name, ["Enter"]);
    await eventually(async () => (await g.screen()).includes(" > too fast"));
    expect(world.eventCount()).toBe(baseline);
    await eventually(async () => {
      await world.tmux.sendKeys(name, ["Enter"]);
      return world
        .events()
        .slice(baseline)
        .some((e) => e.name === "BeforeAgent");
    });
    await g.afterAgent(baseline);
  });

  test("fake:multi: the transcript has the answer, AfterAgent's prompt_response is mangled", async () => {
    const { baseline, turnKey } = await g.send("fake:multi");
    await g.afterAgent(baseline);
    const after = world
      .events()
      .slice(baseline)
      .find((e) => e.name === "AfterAgent");
    expect(after?.payload.prompt_response).toBe("Hello, world. world.");
    expect((await g.answer(turnKey)).text).toBe("Hello, world.");
  });

  test("fake:permission: Notification → input, the box; '1' runs the tool and the turn ends", async () => {
    const { baseline, turnKey } = await g.send("fake:permission");
    const asked = await eventually(() =>
      world
        .events()
        .slice(baseline)
        .find((e) => e.name === "Notification"),
    );
    expect(gemini.interpretEvent(asked)).toEqual({
      kind: "input",
      text: "Shell: touch fake-approved.txt",
      detail: "permission",
    });
    expect((await g.until("input")).text).toContain("Allow execution of [Shell]?");
    await world.tmux.sendKeys(name, ["1"]);
    await g.afterAgent(baseline);
    expect(await g.answer(turnKey)).toMatchObject({ status: "answered", text: "FAKE-TOOL-DONE" });
    expect(existsSync(join(world.work, "fake-approved.txt"))).toBe(true);
  });

  test("fake:permission denied with Escape: no AfterAgent, ready again, the turn reads as cancelled", async () => {
    const { baseline, turnKey } = await g.send("fake:permission");
    await g.until("input");
    await world.tmux.sendKeys(name, ["Escape"]);
    await g.until("ready");
    expect(ended(baseline)).toBe(false);
    expect(await g.answer(turnKey)).toMatchObject({ status: "cancelled", text: null });
    // the history was re-appended under new ids: earlier turns still read right
    const transcript = world.transcript();
    expect(
      transcript.split("\n").filter((line) => line.includes('"text":"is this right? yes! ok"')),
    ).toHaveLength(3);
  });

  test("fake:error 500: AfterAgent, the prompt rolled back, the error line", async () => {
    const { baseline, turnKey } = await g.send("fake:error 500");
    await g.afterAgent(baseline);
    const answer = await g.answer(turnKey);
    expect(answer).toMatchObject({ status: "failed", text: null });
    expect(answer.error).toContain('"code":500');
    expect(await g.until("ready")).toEqual({ kind: "ready" });
  });

  test("fake:quota: Keep trying / Stop with no hook; its keys stop it; failed", async () => {
    const { baseline, turnKey } = await g.send("fake:quota");
    const dialog = await g.until("error");
    expect(dialog).toMatchObject({ keys: ["2"], text: expect.stringContaining("Usage limit reached") });
    expect(ended(baseline)).toBe(false);
    await world.tmux.sendKeys(name, [...dialog.keys]);
    await g.afterAgent(baseline);
    expect((await g.answer(turnKey)).error).toContain("daily quota");
  });

  test("fake:retry: BeforeModel markers only; the stall rule fires; Escape cancels", async () => {
    const started = Date.now();
    const { baseline, turnKey } = await g.send("fake:retry");
    const stall = await eventually(async () => {
      const result = assessRetryStall({
        events: world.events().slice(baseline),
        lastProgressAt: started,
        now: Date.now(),
        busy: (await g.state()).kind === "busy",
        stallMs: 1_500,
      });
      return result.stalled ? result : null;
    }, 15_000);
    expect(stall.attempts).toBeGreaterThanOrEqual(2);
    await world.tmux.sendKeys(name, ["Escape"]);
    await g.afterAgent(baseline);
    expect(await g.answer(turnKey)).toMatchObject({ status: "cancelled" });
  });

  test("fake:loop: the answer, AfterAgent, then the loop dialog (answered with its digit)", async () => {
    const { baseline, turnKey } = await g.send("fake:loop");
    await g.afterAgent(baseline);
    expect(await g.until("dialog")).toEqual({
      kind: "dialog",
      dialog: "loop-detection",
      keys: ["1"],
      answer: "Keep loop detection enabled",
    });
    await world.tmux.sendKeys(name, ["1"]);
    await g.until("ready");
    expect((await g.answer(turnKey)).text).toStartWith("FAKE-REPLY");
  });

  test("fake:history counts the prompts that survived; a leading /command is a prompt after preparation", async () => {
    const { baseline, turnKey } = await g.send("/about fake:history");
    await g.afterAgent(baseline);
    // plain, too fast, multi, permission, loop survived; denied, error, quota and retry were rolled back
    expect((await g.answer(turnKey)).text).toMatch(/^HISTORY n=5 last=[0-9a-f]{12}$/);
  });

  test("typing (not pasting) loses `?` and `!` switches to shell mode", async () => {
    await world.tmux.sendLiteral(name, "why?");
    await eventually(async () => (await g.screen()).includes(" > why\n"));
    await world.tmux.sendKeys(name, ["C-u"]);
    await world.tmux.sendLiteral(name, "!");
    expect(await g.until("dialog")).toEqual({ kind: "dialog", dialog: "shell-mode", keys: ["Escape"] });
    await world.tmux.sendKeys(name, ["Escape"]);
    await g.until("ready");
  });

  test("fake:die 3 ends the CLI with status 3 after BeforeAgent", async () => {
    const { baseline } = await g.send("fake:die 3");
    await eventually(() => world.exit(), 10_000);
    expect(world.exit()).toEqual({ exitCode: 3 });
    expect(ended(baseline)).toBe(false);
    expect(readFileSync(world.eventsLog, "utf8")).toContain('"prompt":"fake:die 3"');
  });
});

describe("fake gemini: startup screens", () => {
  let world: GeminiWorld;
  beforeAll(async () => {
    world = await createGeminiWorld(FAKE, null);
  });
  afterAll(() => world.dispose());

  test("an untrusted folder shows the trust dialog; its digit trusts and the session starts", async () => {
    const g = driveGemini(world, "trust");
    await world.start("trust", { env: { GEMINI_CLI_TRUST_WORKSPACE: "" }, watchStartup: true });
    const dialog = await g.until("dialog");
    expect(dialog).toEqual({
      kind: "dialog",
      dialog: "trust",
      keys: ["1"],
      grantsTrust: true,
      answer: "Trust folder",
    });
    await world.tmux.sendKeys("trust", [...dialog.keys]);
    await g.until("ready");
    expect(readFileSync(join(world.geminiHome, ".gemini", "trustedFolders.json"), "utf8")).toContain(
      "TRUST_FOLDER",
    );
  });

  test("no auth method: the sign-in screen, and no SessionStart", async () => {
    const g = driveGemini(world, "signin");
    const before = world.eventCount("signin");
    await world.start("signin", { env: { FAKE_GEMINI_SIGNIN: "1" }, watchStartup: true });
    expect((await g.until("sign-in")).text).toContain("How would you like to authenticate");
    expect(
      world
        .events("signin")
        .slice(before)
        .some((e) => e.name === "SessionStart"),
    ).toBe(false);
  });

  test("a --session-id that exists: gemini's message and exit 42", async () => {
    const g = driveGemini(world, "first");
    const { sessionId } = await world.start("first", { watchStartup: true });
    await g.until("ready");
    await world.tmux.killSession("trust");
    // The same id in the same GEMINI_CLI_HOME (umbel itself never reuses one).
    await world.start("again", {
      args: ["--session-id", sessionId],
      env: { GEMINI_CLI_HOME: world.homeOf("first") },
      watchStartup: true,
    });
    await eventually(() => world.exit());
    expect(world.exit()).toEqual({ exitCode: 42 });
    // tmux 3.3 scrolls a dead pane's output away when it prints "Pane is dead": read the history too.
    const screen = (await world.tmux.capture("again", { lines: 100 })) ?? "";
    expect(gemini.classifyScreen(screen)).toMatchObject({
      kind: "exited",
      text: expect.stringContaining("already exists. Use --resume"),
    });
  });
});
