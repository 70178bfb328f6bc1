// test/fixtures/fake-codex.sh on real tmux, read only through umbel's pure codex provider: the
// fake must look to umbel like the real 0.171.0 TUI (test/real/codex-stub.test.ts runs the same
// driver and provider against the real one).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { interpretCodexEvent } from "../../src/core/providers/codex/events.ts";
import {
  classifyCodexScreen,
  clearCodexComposerKeys,
  findCodexScreenError,
  readCodexComposer,
} from "../../src/core/providers/codex/screen.ts";
import { findCodexTurnEnd, parseCodexAnswer } from "../../src/core/providers/codex/transcript.ts";
import { statusOf } from "../../src/operations/worker/status.ts";
import { type CodexDriver, seedCodexWorld, startCodex } from "../helpers/codex-world.ts";
import { eventually } from "../helpers/sandbox.ts";

// Workers on real tmux take seconds a test; bun's default is 5 s (declared here: a preload's
// setDefaultTimeout reaches only the first file of a run, oven-sh/bun#43787).
setDefaultTimeout(60_000);

const FAKE = join(import.meta.dir, "..", "fixtures", "fake-codex.sh");
const CONFIG = 'model = "fake-model"\n';

function gitDir(root: string, name: string): string {
  const dir = join(root, name);
  mkdirSync(dir);
  Bun.spawnSync(["git", "init", "-q", dir]);
  return dir;
}

describe("fake codex through the codex provider", () => {
  let root: string;
  let c: CodexDriver;
  let work: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "umbel-fake-codex-"));
    work = gitDir(root, "work");
    c = await startCodex(seedCodexWorld(join(root, "w1"), CONFIG), {
      bin: FAKE,
      name: "w1",
      cwd: work,
    });
    await c.until("ready");
  });
  afterAll(async () => {
    await c?.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  const transcriptOf = (baseline: number) =>
    readFileSync(
      String(c.hooks(baseline).find((e) => e.name === "UserPromptSubmit")?.payload.transcript_path),
      "utf8",
    );

  test("the worker is the engine's own: umbel status knows it", async () => {
    expect(await statusOf(c.deps, "w1")).toMatchObject({ name: "w1", provider: "codex", state: "idle" });
  });

  test("ready with no dialog and no hook yet; a turn shares one turn id; task_complete lands after Stop", async () => {
    expect(c.hooks()).toEqual([]);
    const prompt = "  say hello\n\twith ünïcødé ✓  ";
    const baseline = await c.send(prompt);
    const stop = await c.hookAfter(baseline, "Stop");
    const signals = c.hooks(baseline).map(interpretCodexEvent);
    expect(signals.map((s) => s.kind)).toEqual(["session-start", "submitted", "stop"]);
    const trimmed = "say hello\n\twith ünïcødé ✓";
    expect(signals[1]).toMatchObject({ kind: "submitted", prompt: trimmed });
    const turnId = String(stop.payload.turn_id);
    expect(stop.payload.last_assistant_message).toStartWith("FAKE-REPLY len=25 sha=");
    const transcript = await eventually(() => {
      const t = transcriptOf(baseline);
      return findCodexTurnEnd(t, turnId).status === "complete" ? t : null;
    });
    expect(parseCodexAnswer(transcript, turnId)).toMatchObject({
      text: stop.payload.last_assistant_message,
      complete: true,
    });
  });

  test("fake:error fires no hook; the transcript says failed and the screen shows the error", async () => {
    const baseline = await c.send("fake:error 429");
    const submitted = await c.hookAfter(baseline, "UserPromptSubmit");
    const end = await eventually(() => {
      const e = findCodexTurnEnd(transcriptOf(baseline), String(submitted.payload.turn_id));
      return e.status === "failed" ? e : null;
    });
    expect(end).toMatchObject({
      error: "exceeded retry limit, last status: 429 Too Many Requests",
      errorKind: "response_too_many_failed_attempts",
    });
    expect(await eventually(async () => findCodexScreenError(await c.screen()))).toStartWith(
      "exceeded retry limit",
    );
    expect(c.hooks(baseline).map((e) => e.name)).toEqual(["UserPromptSubmit"]);
  });

  test("fake:permission: PermissionRequest, the input screen, y approves, Stop", async () => {
    const baseline = await c.send("fake:permission");
    expect(interpretCodexEvent(await c.hookAfter(baseline, "PermissionRequest"))).toMatchObject({
      kind: "input",
      text: "Bash: touch fake-approved.txt (fake escalation)",
    });
    await c.until("input");
    await c.tmux.sendKeys(c.name, ["y"]);
    expect((await c.hookAfter(baseline, "Stop")).payload.last_assistant_message).toBe("FAKE-APPROVED");
    expect(existsSync(join(work, "fake-approved.txt"))).toBe(true);
    // codex's Stop comes before its turn ends (task_complete after it): a prompt typed in between
    // steers this turn instead of starting one (the next test's fake:hang did, on a loaded CI).
    await c.until("ready");
  });

  test("fake:hang + Esc: Interrupt and turn_aborted, no Stop", async () => {
    const baseline = await c.send("fake:hang");
    await c.until("busy");
    await c.tmux.sendKeys(c.name, ["Escape"]);
    const interrupt = await c.hookAfter(baseline, "Interrupt");
    expect(interpretCodexEvent(interrupt)).toMatchObject({ kind: "interrupted" });
    expect(findCodexTurnEnd(transcriptOf(baseline), String(interrupt.payload.turn_id)).status).toBe(
      "aborted",
    );
    expect(c.hooks(baseline).some((e) => e.name === "Stop")).toBe(false);
  });

  test("an unknown /command stays in the composer with the cursor at its start; the provider's keys clear it", async () => {
    await c.tmux.paste(c.name, "/notacmd hi", "umbel-raw");
    await c.tmux.sendKeys(c.name, ["Enter"]);
    await eventually(async () => (await c.screen()).includes("Unrecognized command '/notacmd'"));
    await c.tmux.sendKeys(c.name, ["C-u"]);
    await c.tmux.paste(c.name, "more ", "umbel-raw");
    // C-u killed nothing (the cursor sits at the start), and the paste went in before the old text.
    await eventually(async () => readCodexComposer(await c.screen()) === "more /notacmd hi");
    for (const key of clearCodexComposerKeys(await c.screen())) await c.tmux.sendKeys(c.name, [key]);
    await eventually(async () => readCodexComposer(await c.screen()) === "");
  });

  test("fake:history counts this thread's prompts", async () => {
    const baseline = await c.send("fake:history");
    expect((await c.hookAfter(baseline, "Stop")).payload.last_assistant_message).toMatch(
      /^HISTORY n=4 last=[0-9a-f]{12}$/,
    );
  });

  test("resume <id> while the session is live: locked until the first worker is gone, then fake:history goes on", async () => {
    const first = c.hooks().find((e) => e.name === "SessionStart");
    const sessionId = String(first?.payload.session_id);
    const world = seedCodexWorld(join(root, "w1"), CONFIG);
    const r = await startCodex(world, {
      bin: FAKE,
      name: "w1r",
      cwd: work,
      resume: sessionId,
      watchStartup: true,
    });
    const old = c;
    c = r; // the later tests (and afterAll) use the resumed worker
    expect(await r.until("dialog")).toMatchObject({ dialog: "thread-locked", keys: [] });
    await old.dispose();
    // r retries once: pressed while the old codex is still letting go of the lock (a loaded machine),
    // the dialog comes back; a person presses it again.
    await eventually(
      async () => {
        await r.tmux.sendKeys(r.name, ["r"]);
        return r.until("ready", 1000).catch(() => null);
      },
      15_000,
      "a ready screen after r",
    );
    const baseline = await r.send("fake:history");
    const stop = await r.hookAfter(baseline, "Stop");
    expect(r.hooks(baseline)[0]?.payload).toMatchObject({ source: "resume", session_id: sessionId });
    expect(stop.payload.transcript_path).toBe(first?.payload.transcript_path);
    expect(stop.payload.last_assistant_message).toMatch(/^HISTORY n=5 last=[0-9a-f]{12}$/);
  });

  test("C-c on an empty composer quits at once, printing how to resume", async () => {
    await c.tmux.sendKeys(c.name, ["C-c"]);
    // tmux 3.3 sometimes marks the pane dead (pty EOF) before it reaps the process, and then never
    // fills #{pane_dead_status}; umbel takes exit codes from launch.sh's record, not from tmux.
    const pane = await eventually(async () => {
      const info = await c.tmux.paneInfo(c.name);
      return info?.dead ? info : null;
    });
    expect(pane.deadStatus ?? 0).toBe(0);
    expect(await c.screen()).toContain("To continue this session, run:\n  codex resume ");
  });
});

describe("fake codex startup dialogs, answered by the provider's keys", () => {
  test("no profile: trust, update and hook review in the real order; umbel's keys get to ready", async () => {
    const root = mkdtempSync(join(tmpdir(), "umbel-fake-codex-"));
    const world = seedCodexWorld(join(root, "w2"), CONFIG);
    const work = gitDir(root, "work");
    const userHook = join(root, "user-hook-ran");
    writeFileSync(
      join(world.managedHome, "hooks.json"),
      JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "command", command: `touch ${userHook}` }] }] } }),
    );
    writeFileSync(join(world.managedHome, "version.json"), '{"latest_version":"0.999.0"}');
    // A later -p wins: the worker's profile is not loaded, so nothing is pre-answered.
    const c = await startCodex(world, {
      bin: FAKE,
      name: "w2",
      cwd: work,
      args: ["-p", "missing"],
      watchStartup: true,
    });
    try {
      const seen: string[] = [];
      await eventually(async () => {
        const state = classifyCodexScreen(await c.screen());
        if (state.kind === "dialog" && seen.at(-1) !== state.dialog) {
          seen.push(state.dialog);
          await Bun.sleep(100);
          for (const key of state.keys) await c.tmux.sendKeys(c.name, [key]);
        }
        return state.kind === "ready";
      });
      expect(seen).toEqual(["trust", "update", "hooks-review"]);
      expect(readFileSync(join(world.managedHome, "config.toml"), "utf8")).toContain(
        `[projects."${work}"]\ntrust_level = "trusted"`,
      );
      await c.send("hello");
      await eventually(async () => (await c.screen()).includes("FAKE-REPLY len=5"));
      expect(existsSync(userHook)).toBe(false);
    } finally {
      await c.dispose();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
