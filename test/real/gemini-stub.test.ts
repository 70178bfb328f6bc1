// Proves the stub's Gemini dialect — and umbel's pure gemini provider — against the REAL gemini-cli
// (the pinned binary from scripts/setup-real-gemini.ts): `gemini -p` for the wire, then one
// interactive session in tmux for screens, hooks, delivery and the transcript. Offline: the stub on
// loopback, a private HOME and GEMINI_CLI_HOME. Timing figures are printed, never asserted.
import { afterAll, afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { assessRetryStall } from "../../src/core/providers/gemini/events.ts";
import { gemini, prepareGeminiPrompt } from "../../src/core/providers/gemini/provider.ts";
import { driveGemini } from "../helpers/gemini-driver.ts";
import { createGeminiWorld, type GeminiWorld, STUB_KEY } from "../helpers/gemini-world.ts";
import { eventually } from "../helpers/sandbox.ts";
import { renderPromptEcho } from "../stub-model/digest.ts";
import { dailyQuotaExhausted } from "../stub-model/gemini-replies.ts";
import { type StubModel, startStubModel } from "../stub-model/stub-model.ts";
import { requireRealGemini } from "./real-gemini.ts";

// The real CLI on real tmux takes seconds a test, minutes a file; bun's default is 5 s (declared
// here: a preload's setDefaultTimeout reaches only the first file of a run, oven-sh/bun#43787).
setDefaultTimeout(120_000);

const bin = requireRealGemini("test/real/gemini-stub.test.ts");
const MODEL = "gemini-2.5-flash";
const RUN_TIMEOUT_MS = 60_000;
const timing = (what: string, ms: number) => console.log(`[timing] gemini ${what}: ${Math.round(ms)} ms`);

let stub: StubModel;
beforeAll(async () => {
  stub = await startStubModel({ dialect: "gemini" });
});
afterEach(() => stub.reset());
afterAll(() => stub.stop());

describe.skipIf(bin === null)("real gemini -p against the stub", () => {
  let world: GeminiWorld;
  beforeAll(async () => {
    world = await createGeminiWorld(bin ?? "gemini", stub.url);
  });
  afterAll(() => world.dispose());

  async function print(prompt: string, args: string[] = []) {
    const child = Bun.spawn([bin ?? "gemini", "-p", prompt, ...args], {
      cwd: world.work,
      env: world.env(),
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
      timeout: RUN_TIMEOUT_MS,
    });
    const [stdout, stderr] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
    ]);
    return { stdout, stderr, exitCode: await child.exited };
  }

  test("the echo; one streamed request with gemini-cli's headers (no router with -m)", async () => {
    const prompt = 'what is 2+2? yes! "quoted" \t tab';
    const { stdout, exitCode } = await print(prompt, ["-m", MODEL]);
    expect(stdout.trim()).toBe(renderPromptEcho(prompt));
    expect(exitCode).toBe(0);
    const mains = stub.mainRequests();
    expect(
      stub.requests.filter((r) => r.kind !== "title").map((r) => `${r.path}${r.query} ${r.kind}`),
    ).toEqual([`/v1beta/models/${MODEL}:streamGenerateContent?alt=sse main`]);
    expect(mains[0]?.headers).toMatchObject({ "x-goog-api-key": STUB_KEY });
    // 0.61.0 sends the TUI's user agent even under -p.
    expect(mains[0]?.headers["user-agent"]).toStartWith(`GeminiCLI-tui/0.61.0/${MODEL}`);
    expect(mains[0]?.main?.injected).toStartWith("<session_context>");
  });

  test("Auto (no -m) asks the router first: a classifier side request", async () => {
    const { stdout } = await print("route me");
    expect(stdout.trim()).toBe(renderPromptEcho("route me"));
    expect(stub.requests.map((r) => r.kind)).toContain("classifier");
    expect(stub.mainRequests()).toHaveLength(1);
  });

  test("--output-format json carries the echo as `response`", async () => {
    const { stdout } = await print("json please", ["-m", MODEL, "--output-format", "json"]);
    expect(JSON.parse(stdout)).toMatchObject({ response: renderPromptEcho("json please") });
  });

  test("a 400 fails the run with the API's message; no retry", async () => {
    const { stderr, exitCode } = await print("stub:error 400", ["-m", MODEL]);
    expect(exitCode).not.toBe(0);
    expect(stderr).toContain("stub error 400");
    expect(stub.mainRequests().map((r) => r.answered)).toEqual(["error 400"]);
  });

  test("yolo: a stub:bash tool call runs and its result comes back to the stub", async () => {
    const { stdout } = await print("stub:bash echo from-the-tool > out.txt", [
      "-m",
      MODEL,
      "--approval-mode",
      "yolo",
    ]);
    expect(stdout.trim()).toStartWith("STUB-TOOL-RESULT is_error=false");
    expect(existsSync(join(world.work, "out.txt"))).toBe(true);
    expect(stub.mainRequests().map((r) => r.main?.trigger)).toEqual(["prompt", "tool_result"]);
  });
});

describe.skipIf(bin === null)("real gemini TUI in tmux against the stub", () => {
  let world: GeminiWorld;
  let g: ReturnType<typeof driveGemini>;
  const name = "g1";
  beforeAll(async () => {
    world = await createGeminiWorld(bin ?? "gemini", stub.url);
    g = driveGemini(world, name);
    const started = performance.now();
    await world.start(name, { model: MODEL });
    await g.until("ready", 60_000);
    await eventually(
      () => world.events().some((e) => gemini.interpretEvent(e).kind === "session-start"),
      20_000,
    );
    timing("start → ready + SessionStart", performance.now() - started);
  });
  afterAll(() => world.dispose());

  test("a prompt with ? ! and a leading /command arrives intact; the transcript replay has the echo", async () => {
    for (const prompt of ["is this right? yes! done", "/about is a path?"]) {
      const started = performance.now();
      const { baseline, turnKey, enters } = await g.send(prompt);
      timing(`paste → BeforeAgent (${enters} Enter)`, performance.now() - started);
      await g.afterAgent(baseline);
      const sent = prepareGeminiPrompt(prompt).trim();
      expect(stub.mainRequests().at(-1)?.prompt).toBe(sent);
      expect(await g.answer(turnKey)).toMatchObject({ status: "answered", text: renderPromptEcho(sent) });
    }
  });

  test("a tool call asks: Notification → input, the box is input; '1' runs it", async () => {
    const { baseline, turnKey } = await g.send("stub:bash touch approved.txt");
    const asked = await eventually(
      () =>
        world
          .events()
          .slice(baseline)
          .find((e) => gemini.interpretEvent(e).kind === "input") ?? null,
      20_000,
    );
    expect(gemini.interpretEvent(asked)).toEqual({
      kind: "input",
      text: "Shell: touch approved.txt",
      detail: "permission",
    });
    expect((await g.until("input")).text).toContain("Allow execution of [Shell]?");
    await world.tmux.sendKeys(name, ["1"]);
    await g.afterAgent(baseline);
    expect(await g.answer(turnKey)).toMatchObject({
      status: "answered",
      text: expect.stringMatching(/^STUB-TOOL-RESULT/),
    });
    expect(existsSync(join(world.work, "approved.txt"))).toBe(true);
  });

  test("a denied tool (Escape on the box): no AfterAgent, ready again, the turn reads as cancelled", async () => {
    const { baseline, turnKey } = await g.send("stub:bash touch denied.txt");
    await g.until("input");
    await world.tmux.sendKeys(name, ["Escape"]);
    await g.until("ready");
    expect(await g.answer(turnKey)).toMatchObject({ status: "cancelled", text: null });
    expect(
      world
        .events()
        .slice(baseline)
        .some((e) => e.name === "AfterAgent"),
    ).toBe(false);
    expect(existsSync(join(world.work, "denied.txt"))).toBe(false);
  });

  test("a daily quota opens Keep trying / Stop: an error screen whose keys stop it; AfterAgent; failed", async () => {
    stub.script(dailyQuotaExhausted());
    const { baseline, turnKey } = await g.send("spend my quota");
    const dialog = await g.until("error");
    expect(dialog.text).toContain("Usage limit reached");
    expect(dialog.keys).toEqual(["2"]);
    expect(
      world
        .events()
        .slice(baseline)
        .some((e) => e.name === "AfterAgent"),
    ).toBe(false);
    await world.tmux.sendKeys(name, [...dialog.keys]);
    await g.afterAgent(baseline);
    const parsed = await g.answer(turnKey);
    expect(parsed).toMatchObject({ status: "failed", text: null });
    expect(parsed.error).toContain("daily quota");
    await g.until("ready");
  });

  test("Escape on a hanging request: AfterAgent fires, the prompt is rolled back (cancelled)", async () => {
    const { baseline, turnKey } = await g.send("stub:hang");
    await g.until("busy");
    await stub.waitForRequest((r) => r.answered === "hang");
    await world.tmux.sendKeys(name, ["Escape"]);
    await g.afterAgent(baseline);
    expect(await g.answer(turnKey)).toMatchObject({ status: "cancelled", text: null, prompt: "stub:hang" });
  });

  test("a persistent 500: only BeforeModel markers; the stall rule fires; Escape leaves it usable", async () => {
    const started = Date.now();
    const { baseline, turnKey } = await g.send("stub:error 500");
    const stall = await eventually(
      async () => {
        const result = assessRetryStall({
          events: world.events().slice(baseline),
          lastProgressAt: started,
          now: Date.now(),
          busy: (await g.state()).kind === "busy",
          stallMs: 5_000,
        });
        return result.stalled ? result : null;
      },
      60_000,
      "two model attempts",
    );
    timing(`${stall.attempts} attempts of a 500`, stall.sinceMs);
    expect(
      world
        .events()
        .slice(baseline)
        .some((e) => e.name === "AfterAgent"),
    ).toBe(false);
    await world.tmux.sendKeys(name, ["Escape"]);
    await g.afterAgent(baseline);
    expect(await g.answer(turnKey)).toMatchObject({ status: "cancelled" });
    const after = await g.send("still usable?");
    await g.afterAgent(after.baseline);
    expect(await g.answer(after.turnKey)).toMatchObject({ text: renderPromptEcho("still usable?") });
  });

  test("everything went to GEMINI_CLI_HOME: HOME and the work dir hold nothing of gemini's", () => {
    expect(readdirSync(world.home)).toEqual([]);
    expect(readdirSync(world.work).filter((f) => f.startsWith("."))).toEqual([]);
    expect(readdirSync(join(world.geminiHome, ".gemini"))).toContain("settings.json");
  });
});
