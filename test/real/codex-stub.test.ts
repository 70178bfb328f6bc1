// Proves the stub's OpenAI Responses dialect and the codex provider's data against the REAL
// codex-cli 0.171.0: `codex exec` against the stub, then the interactive TUI in tmux (through
// createTmux, on a private socket) with the umbel-managed CODEX_HOME that planCodexHome describes.
// Timing figures are printed, never asserted.
import { afterAll, afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
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
import {
  type CodexDriver,
  type CodexWorld,
  codexEnv,
  seedCodexWorld,
  startCodex,
  stubProviderToml,
} from "../helpers/codex-world.ts";
import { renderPromptEcho, renderToolResultEcho } from "../stub-model/digest.ts";
import { bash, httpError, text } from "../stub-model/replies.ts";
import { type StubModel, startStubModel } from "../stub-model/stub-model.ts";
import { requireRealCodex } from "./real-codex.ts";

// The real CLI on real tmux takes seconds a test, minutes a file; bun's default is 5 s (declared
// here: a preload's setDefaultTimeout reaches only the first file of a run, oven-sh/bun#43787).
setDefaultTimeout(120_000);

const codex = requireRealCodex("test/real/codex-stub.test.ts");
const timing = (what: string, ms: number) => console.log(`[timing] codex ${what}: ${Math.round(ms)} ms`);

/** Polls `probe` every 50 ms until it returns a value, or fails at the deadline with `what`. */
async function until<T>(
  what: string,
  probe: () => T | null | Promise<T | null>,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== null) return value;
    if (performance.now() > deadline) throw new Error(`codex: no ${what} within ${timeoutMs} ms`);
    await Bun.sleep(50);
  }
}

describe.skipIf(codex === null)("real codex against the stub model", () => {
  let stub: StubModel;
  let root: string;
  let world: CodexWorld;
  let work: string;

  beforeAll(async () => {
    stub = await startStubModel({ dialect: "openai" });
    root = mkdtempSync(join(tmpdir(), "umbel-real-codex-"));
    work = join(root, "work");
    mkdirSync(work);
    world = seedCodexWorld(root, stubProviderToml(stub.url));
  });
  afterEach(() => stub.reset());
  afterAll(async () => {
    await stub.stop();
    rmSync(root, { recursive: true, force: true });
  });

  describe("codex exec", () => {
    type ExecEvent = { type: string; item?: { type: string; text?: string }; error?: { message: string } };
    async function exec(prompt: string, args: string[] = []) {
      const child = Bun.spawn(
        [codex ?? "codex", "exec", "--skip-git-repo-check", "--json", ...args, prompt],
        {
          cwd: work,
          env: codexEnv(world, world.userCodexHome),
          stdin: "ignore",
          stdout: "pipe",
          stderr: "pipe",
        },
      );
      const timer = setTimeout(() => child.kill(), 30_000);
      const [stdout, exitCode] = await Promise.all([new Response(child.stdout).text(), child.exited]);
      clearTimeout(timer);
      const events = stdout
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as ExecEvent);
      const answer = events.findLast((e) => e.item?.type === "agent_message")?.item?.text ?? null;
      return { exitCode, events, answer };
    }

    test("the default reply echoes the prompt byte-exact; one POST /v1/responses, as measured", async () => {
      const prompt = 'first line\n\tsecond "dq" $HOME `tick` \\back\nünïcødé ✓ 🎉';
      const { exitCode, answer } = await exec(prompt);
      expect(answer).toBe(renderPromptEcho(prompt));
      expect(exitCode).toBe(0);
      expect(stub.requests.map((r) => `${r.method} ${r.path} ${r.kind}`)).toEqual([
        "POST /v1/responses main",
      ]);
      const [main] = stub.mainRequests();
      expect(main).toMatchObject({ stream: true, model: "stub-model", prompt });
      expect(main?.headers).toMatchObject({ originator: "codex_exec", accept: "text/event-stream" });
      expect(main?.headers.authorization).toBeUndefined();
      expect(main?.main?.injected).toStartWith("<environment_context>");
    });

    test("Bash becomes exec_command: codex runs it and the stub echoes its output", async () => {
      stub.script(bash("echo hi from the tool"));
      const { exitCode, answer, events } = await exec("run something");
      expect(events.some((e) => e.item?.type === "command_execution")).toBe(true);
      expect(answer).toBe(renderToolResultEcho("hi from the tool\n", false));
      expect(exitCode).toBe(0);
      expect(stub.mainRequests()[1]?.main).toMatchObject({
        trigger: "tool_result",
        toolResults: [{ isError: false, text: "hi from the tool\n" }],
      });
    });

    test("an HTTP 401 fails the turn (exit 1) with codex's message", async () => {
      stub.script(httpError(401));
      const { exitCode, events } = await exec("x");
      expect(events.find((e) => e.type === "turn.failed")?.error?.message).toStartWith(
        "unexpected status 401 Unauthorized: stub error 401",
      );
      expect(exitCode).toBe(1);
    });

    test("a 500 once, then recovery: codex retries with the same body and gets the scripted reply", async () => {
      stub.script(httpError(500, 1), text("recovered"));
      const { exitCode, answer } = await exec("x", ["-c", "model_providers.stub.request_max_retries=2"]);
      expect(answer).toBe("recovered");
      expect(exitCode).toBe(0);
      expect(stub.mainRequests().map((r) => r.answered)).toEqual(["error 500", "message message"]);
    });
  });

  describe("the interactive TUI with the umbel-managed home", () => {
    let c: CodexDriver;
    const screen = () => c.screen();
    const hooks = (from = 0) => c.hooks(from);
    const hookAfter = (from: number, hook: string) => c.hookAfter(from, hook);
    const send = (prompt: string) => c.send(prompt);

    beforeAll(async () => {
      // A git checkout with no trust entry and a pending update: both dialogs would show without
      // umbel's profile (measured); the user's own config even asks for the update check.
      Bun.spawnSync(["git", "init", "-q", work]);
      writeFileSync(
        join(world.userCodexHome, "config.toml"),
        `check_for_update_on_startup = true\n${stubProviderToml(stub.url)}`,
      );
      writeFileSync(join(world.managedHome, "version.json"), '{"latest_version":"0.999.0"}\n');
      c = await startCodex(world, { bin: codex ?? "codex", name: "w1", cwd: work, watchStartup: true });
    });
    afterAll(async () => {
      await c?.dispose();
    });

    test("ready with no dialog at all (trust, update and hook trust come from the profile)", async () => {
      const started = performance.now();
      const states = new Set<string>();
      await until("ready screen", async () => {
        const state = classifyCodexScreen(await screen());
        states.add(state.kind === "dialog" ? `dialog:${state.dialog}` : state.kind);
        return state.kind === "ready" ? state : null;
      });
      timing("start → ready", performance.now() - started);
      expect([...states].filter((s) => s.startsWith("dialog") || s === "sign-in")).toEqual([]);
      expect(readCodexComposer(await screen())).toBe("");
      // SessionStart waits for the first prompt.
      expect(hooks()).toEqual([]);
    });

    test("a turn: SessionStart, UserPromptSubmit and Stop share the turn id; the transcript agrees", async () => {
      const prompt = "say hello\n\twith a tab, ünïcødé ✓ and a `tick`";
      const started = performance.now();
      const baseline = await send(prompt);
      const stop = await hookAfter(baseline, "Stop");
      timing("Enter → Stop", performance.now() - started);
      const signals = hooks(baseline).map(interpretCodexEvent);
      expect(signals.map((s) => s.kind)).toEqual(["session-start", "submitted", "stop"]);
      const [start, submitted] = signals;
      expect(submitted).toMatchObject({ kind: "submitted", prompt, human: true });
      const turnId = submitted?.kind === "submitted" ? submitted.promptId : null;
      expect(interpretCodexEvent(stop)).toMatchObject({
        promptId: turnId,
        message: renderPromptEcho(prompt),
      });
      const path = start?.kind === "session-start" ? start.transcriptPath : null;
      expect(path).toStartWith(`${world.managedHome}/sessions/`);
      const transcript = await until("task_complete", () => {
        const t = readFileSync(path ?? "", "utf8");
        return findCodexTurnEnd(t, turnId).status === "complete" ? t : null;
      });
      expect(parseCodexAnswer(transcript, turnId)).toMatchObject({
        text: renderPromptEcho(prompt),
        complete: true,
        assistantMessages: 1,
      });
      expect(stub.mainRequests()[0]?.prompt).toBe(prompt);
    });

    test("a leading / and a trailing @word are pasted as plain text and reach the model trimmed", async () => {
      for (const prompt of ["/status is not what I mean", "explain @README"]) {
        const baseline = await send(prompt);
        const stop = await hookAfter(baseline, "Stop");
        expect(stop.payload.last_assistant_message).toBe(renderPromptEcho(prompt));
      }
    });

    test("a failed turn fires no hook: the transcript's task_complete error ends it", async () => {
      const baseline = await send("stub:error 401");
      const submitted = await hookAfter(baseline, "UserPromptSubmit");
      const turnId = String(submitted.payload.turn_id);
      const path = String(submitted.payload.transcript_path);
      const end = await until("failed turn", () => {
        const e = findCodexTurnEnd(readFileSync(path, "utf8"), turnId);
        return e.status === "running" ? null : e;
      });
      expect(end).toMatchObject({ status: "failed", errorKind: "http_connection_failed" });
      expect(end.status === "failed" && end.error).toStartWith("unexpected status 401 Unauthorized");
      expect(await until("error line", async () => findCodexScreenError(await screen()))).toStartWith(
        "unexpected status 401 Unauthorized",
      );
      expect(hooks(baseline).map((e) => e.name)).toEqual(["UserPromptSubmit"]);
    });

    test("an escalation asks: PermissionRequest, the input screen, y approves, Stop", async () => {
      const baseline = await send("stub:escalate touch escalated.txt");
      const request = await hookAfter(baseline, "PermissionRequest");
      expect(interpretCodexEvent(request)).toEqual({
        kind: "input",
        text: "Bash: touch escalated.txt (stub escalation)",
        detail: "permission",
      });
      const prompt = await until("approval screen", async () => {
        const state = classifyCodexScreen(await screen());
        return state.kind === "input" ? state : null;
      });
      expect(prompt.text).toContain("Would you like to run the following command?");
      await c.tmux.sendKeys(c.name, ["y"]);
      await hookAfter(baseline, "Stop");
      expect(hooks(baseline).map((e) => e.name)).toEqual([
        "UserPromptSubmit",
        "PreToolUse",
        "PermissionRequest",
        "PostToolUse",
        "Stop",
      ]);
      expect(existsSync(join(work, "escalated.txt"))).toBe(true);
    });

    test("Esc on a hanging turn: Interrupt, turn_aborted, no Stop", async () => {
      const baseline = await send("stub:hang");
      const submitted = await hookAfter(baseline, "UserPromptSubmit");
      await until("busy screen", async () =>
        classifyCodexScreen(await screen()).kind === "busy" ? true : null,
      );
      await c.tmux.sendKeys(c.name, ["Escape"]);
      const interrupt = await hookAfter(baseline, "Interrupt");
      expect(interpretCodexEvent(interrupt)).toEqual({
        kind: "interrupted",
        promptId: String(submitted.payload.turn_id),
      });
      const path = String(submitted.payload.transcript_path);
      expect(
        await until("turn_aborted", () => {
          const e = findCodexTurnEnd(readFileSync(path, "utf8"), String(submitted.payload.turn_id));
          return e.status === "aborted" ? e : null;
        }),
      ).toMatchObject({ reason: "interrupted" });
      expect(hooks(baseline).some((e) => e.name === "Stop")).toBe(false);
    });

    test("the composer is read back and cleared line by line (C-u alone would not)", async () => {
      await c.tmux.paste(c.name, "left over\nsecond line", "umbel-codex-leftover");
      expect(await until("composer text", async () => readCodexComposer(await screen()) || null)).toBe(
        "left over\nsecond line",
      );
      for (const key of clearCodexComposerKeys(await screen())) await c.tmux.sendKeys(c.name, [key]);
      expect(
        await until("empty composer", async () => (readCodexComposer(await screen()) === "" ? true : null)),
      ).toBe(true);
    });

    test("resume <id> while the session is live: locked until the first worker is gone, then the same thread", async () => {
      const first = c.hooks().find((e) => e.name === "SessionStart");
      const sessionId = String(first?.payload.session_id);
      const r = await startCodex(world, {
        bin: codex ?? "codex",
        name: "w1r",
        cwd: work,
        resume: sessionId,
        watchStartup: true,
      });
      try {
        expect(await r.until("dialog")).toMatchObject({ dialog: "thread-locked", keys: [] });
        // r while the holder lives keeps the lock screen (spawn presses it once a second for 10 s).
        await r.tmux.sendKeys(r.name, ["r"]);
        await Bun.sleep(1000);
        expect(await r.until("dialog")).toMatchObject({ dialog: "thread-locked" });
        await c.tmux.killSession(c.name);
        await r.tmux.sendKeys(r.name, ["r"]);
        await r.until("ready");
        const baseline = await r.send("and again");
        const stop = await r.hookAfter(baseline, "Stop");
        const start = r.hooks(baseline).find((e) => e.name === "SessionStart");
        expect(start?.payload).toMatchObject({ source: "resume", session_id: sessionId });
        expect(stop.payload.transcript_path).toBe(first?.payload.transcript_path);
        const request = stub.mainRequests().at(-1);
        expect(request?.prompt).toBe("and again");
        expect(request?.main?.messageCount).toBeGreaterThan(10);
      } finally {
        await r.dispose();
      }
    });
  });
});
