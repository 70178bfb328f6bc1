// The REAL Claude Code TUI (the pinned binary from `npm run setup:real`) driven through the built
// dist/umbel against the stub model on loopback: the proof that umbel works with the vendor's CLI
// as it ships, not only with our fake. Timing figures are printed, never asserted.
import { afterAll, afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSandbox, eventually, type Sandbox } from "../helpers/sandbox.ts";
import { renderPromptEcho } from "../stub-model/digest.ts";
import { bash, hang, httpError, text } from "../stub-model/replies.ts";
import { type StubModel, startStubModel } from "../stub-model/stub-model.ts";
import { type ClaudeHome, claudeEnv, seedClaudeHome } from "./claude-home.ts";
import { requireRealClaude } from "./real-bin.ts";

// Real workers take seconds; bun's default is 5 s, and a preload's setDefaultTimeout reaches only
// the first file of a run (oven-sh/bun#43787).
setDefaultTimeout(60_000);

const claude = requireRealClaude("test/real/claude.test.ts");
const API_KEY = "sk-ant-test-umbel-real-0123456789abcdefghij";
const KEY = ["--env", "ANTHROPIC_API_KEY"];

type Json = Record<string, unknown> & { evidence: Record<string, unknown> };
const json = (text: string) => JSON.parse(text) as Json;
const timing = (what: string, ms: number) => console.log(`[timing] ${what}: ${Math.round(ms)} ms`);

/** A sandbox (own state root and tmux server) whose claude has its own seeded, untrusting config. */
type World = { sb: Sandbox; home: ClaudeHome; dispose(): Promise<void> };

let stub: StubModel;

async function makeWorld(): Promise<World> {
  const dir = await mkdtemp(join(tmpdir(), "umbel-real-"));
  // What a signed-in user already has (onboarding done, the key approved), but no trusted folder.
  const home = seedClaudeHome(dir, { apiKey: API_KEY });
  const sb = await createSandbox({
    untrusted: true,
    env: {
      HOME: home.home,
      CLAUDE_CONFIG_DIR: home.configDir,
      TMPDIR: home.tmpDir,
      DISABLE_AUTOUPDATER: "1",
      ANTHROPIC_BASE_URL: stub.url,
      ANTHROPIC_API_KEY: API_KEY,
      UMBEL_CLAUDE_BIN: claude ?? "claude",
    },
  });
  return {
    sb,
    home,
    async dispose() {
      await sb.dispose();
      await removeSettled(dir);
    },
  };
}

/**
 * claude writes into its config dir (telemetry, backups) while it exits on the SIGHUP of a killed
 * tmux server, which can be after a first rm: remove until the folder stays gone for 500 ms.
 */
async function removeSettled(dir: string): Promise<void> {
  const until = Date.now() + 10_000;
  let goneSince: number | null = null;
  while (Date.now() < until) {
    if (existsSync(dir)) {
      goneSince = null;
      await rm(dir, { recursive: true, force: true });
    } else {
      goneSince ??= Date.now();
      if (Date.now() - goneSince >= 500) return;
    }
    await Bun.sleep(50);
  }
}

async function ok(sb: Sandbox, args: string[], stdin?: string): Promise<Json> {
  const r = await sb.umbel([...args, "--json"], stdin === undefined ? {} : { stdin });
  if (r.code !== 0) throw new Error(`umbel ${args.join(" ")} → ${r.code}\n${r.stdout}${r.stderr}`);
  return json(r.stdout);
}

/** send, then wait after its baseline; the outcome and how long each half took. */
async function turn(sb: Sandbox, name: string, prompt: string) {
  const started = performance.now();
  const sent = await ok(sb, ["send", name], prompt);
  const sentAt = performance.now();
  const waited = await sb.umbel([
    "wait",
    name,
    "--after",
    String(sent.baseline),
    "--json",
    "--timeout",
    "30s",
  ]);
  return {
    baseline: sent.baseline as number,
    outcome: json(waited.stdout),
    code: waited.code,
    sendMs: sentAt - started,
    waitMs: performance.now() - sentAt,
  };
}

describe.skipIf(claude === null)("real claude through dist/umbel", () => {
  beforeAll(async () => {
    stub = await startStubModel({ dialect: "anthropic" });
  });
  afterEach(() => stub.reset());
  afterAll(async () => {
    await stub.stop();
  });

  describe("one worker, several turns", () => {
    let w: World;
    beforeAll(async () => {
      w = await makeWorld();
    });
    afterAll(async () => {
      await w.dispose();
    });

    test("spawn in an untrusted folder answers the trust dialog; send → wait (stop) → read", async () => {
      const started = performance.now();
      const spawned = await ok(w.sb, ["spawn", "talk", ...KEY]);
      timing("spawn → ready (trust dialog answered)", performance.now() - started);
      expect(spawned).toMatchObject({ state: "ready", dialogsAnswered: ["trust"] });
      // claude records the trust in .claude.json on its own schedule: a spawn that is ready within
      // ms of SessionStart (docs/performance.md) can return before the write lands (seen at load 13).
      const trusted = () => {
        try {
          const config = JSON.parse(readFileSync(join(w.home.configDir, ".claude.json"), "utf8"));
          return config.projects?.[realpathSync(w.sb.work)]?.hasTrustDialogAccepted === true;
        } catch {
          return false; // mid-write
        }
      };
      expect(await eventually(trusted, 5_000, "claude to record the trust").catch(() => false)).toBe(true);

      const t = await turn(w.sb, "talk", "what is 2+2?");
      timing("first turn: send (paste, Enter, UserPromptSubmit)", t.sendMs);
      timing("first turn: send returned (prompt taken) → wait returned stop", t.waitMs);
      expect(t.outcome).toMatchObject({ reason: "stop", exitCode: 0 });
      expect(t.code).toBe(0);
      const read = await w.sb.umbel(["read", "talk"]);
      expect(read.stdout).toBe(`${renderPromptEcho("what is 2+2?")}\n`);
    });

    test("a multi-line and a 20 KB prompt arrive byte-exact (tabs become 4 spaces)", async () => {
      const multi = "first line\n  second, indented   \n\n\"dq\" 'sq' $HOME `tick` \\back\n日本語 🎉 end";
      const big = Array.from({ length: 400 }, (_, i) => `${i}: ${"x".repeat(45)}`).join("\n");
      expect(big.length).toBeGreaterThan(20_000);
      for (const prompt of [multi, big]) {
        const t = await turn(w.sb, "talk", prompt);
        expect(t.outcome.reason).toBe("stop");
        expect(stub.mainRequests().at(-1)?.prompt).toBe(prompt);
        expect((await w.sb.umbel(["read", "talk"])).stdout).toBe(`${renderPromptEcho(prompt)}\n`);
      }
      // claude's own rewrite of a pasted TAB (2.1.332): a change here is vendor drift.
      await turn(w.sb, "talk", "tab\there");
      expect(stub.mainRequests().at(-1)?.prompt).toBe("tab    here");
    });

    test("prompts starting with / and ! reach the model as text, not as commands", async () => {
      // umbel pads `/…` until claude folds the paste (a leading space would not stop `/exit`) and
      // puts a space before `!` (shell mode otherwise).
      for (const [prompt, delivered] of [
        ["/exit please", "/exit please\n\n\n"],
        ["/help me", "/help me\n\n\n"],
        ["!echo bang", " !echo bang"],
      ]) {
        const t = await turn(w.sb, "talk", prompt ?? "");
        expect(t.outcome.reason).toBe("stop");
        expect(stub.mainRequests().at(-1)?.prompt).toBe(delivered);
      }
      expect((await ok(w.sb, ["status", "talk"])).state).toBe("idle");
    });

    test("two consecutive turns: read returns the second answer; --after the first returns the first", async () => {
      stub.script(text("first answer"), text("second answer"));
      const first = await turn(w.sb, "talk", "one");
      const second = await turn(w.sb, "talk", "two");
      timing("a later turn: send returned (prompt taken) → wait returned stop", second.waitMs);
      expect([first.outcome.reason, second.outcome.reason]).toEqual(["stop", "stop"]);
      expect((await w.sb.umbel(["read", "talk"])).stdout).toBe("second answer\n");
      expect((await w.sb.umbel(["read", "talk", "--after", String(first.baseline)])).stdout).toBe(
        "first answer\n",
      );
    });
  });

  test("umbel -p (text, json, stdin) answers like claude -p on the same stub; json keys compared", async () => {
    const w = await makeWorld();
    try {
      let started = performance.now();
      const plain = await w.sb.umbel(["-p", "print me", ...KEY]);
      timing("umbel -p, cold (trusted for its session only)", performance.now() - started);
      expect(plain.stdout).toBe(`${renderPromptEcho("print me")}\n`);
      expect(plain.code).toBe(0);
      const piped = await w.sb.umbel(["-p", ...KEY], { stdin: "from stdin\n" });
      expect(piped.stdout).toBe(`${renderPromptEcho("from stdin")}\n`);

      started = performance.now();
      const ours = await w.sb.umbel(["-p", "same prompt", "--output-format", "json", ...KEY]);
      const umbelMs = performance.now() - started;
      started = performance.now();
      const theirs = Bun.spawn([claude ?? "claude", "-p", "same prompt", "--output-format", "json"], {
        cwd: w.sb.work,
        env: claudeEnv(w.home, { baseUrl: stub.url, apiKey: API_KEY }),
        stdout: "pipe",
        stderr: "pipe",
      });
      const theirOut = await new Response(theirs.stdout).text();
      expect(await theirs.exited).toBe(0);
      timing("umbel -p (json)", umbelMs);
      timing("claude -p (json), same stub", performance.now() - started);

      const a = JSON.parse(ours.stdout) as Record<string, unknown>;
      const b = JSON.parse(theirOut) as Record<string, unknown>;
      // umbel's keys are claude's plus its own `umbel` object, each with claude's JSON type (or null
      // where umbel cannot know the value); docs/providers.md lists the keys that differ.
      const kind = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);
      const shared = Object.keys(a).filter((key) => key !== "umbel");
      expect(shared.filter((key) => !(key in b))).toEqual([]);
      for (const key of shared) {
        if (a[key] !== null) expect([key, kind(a[key])]).toEqual([key, kind(b[key])]);
      }
      for (const key of ["type", "subtype", "is_error", "result"]) expect(a[key]).toEqual(b[key]);
      const missing = Object.keys(b).filter((key) => !(key in a));
      const unknown = shared.filter((key) => a[key] === null && b[key] !== null);
      console.log(
        `[keys] claude -p only: ${missing.join(" ") || "none"}; null in umbel: ${unknown.join(" ") || "none"}`,
      );
      expect((await w.sb.umbel(["ls"])).stdout).not.toContain("p-");
    } finally {
      await w.dispose();
    }
  });

  test("a permission prompt: wait says input (126) with the prompt; keys 1 approves; the turn stops", async () => {
    const w = await makeWorld();
    try {
      await ok(w.sb, ["spawn", "perm", "--permission-mode", "manual", ...KEY]);
      stub.script(bash("echo approved > approved.txt", text("done after approval")));
      const asked = await turn(w.sb, "perm", "please run it");
      expect(asked.outcome).toMatchObject({ reason: "input", exitCode: 126 });
      expect(asked.outcome.evidence.prompt).toBe("Bash: echo approved > approved.txt");
      expect(String(asked.outcome.evidence.screen)).toContain("Do you want to proceed?");
      expect(asked.code).toBe(126);
      expect((await ok(w.sb, ["status", "perm"])).state).toBe("needs-input");

      expect((await w.sb.umbel(["keys", "perm", "1"])).code).toBe(0);
      const done = await w.sb.umbel(["wait", "perm", "--after", String(asked.baseline), "--json"]);
      expect(json(done.stdout).reason).toBe("stop");
      expect((await w.sb.umbel(["read", "perm"])).stdout).toBe("done after approval\n");
      expect(readFileSync(join(w.sb.work, "approved.txt"), "utf8")).toBe("approved\n");
    } finally {
      await w.dispose();
    }
  });

  test("an API error (500, retries off) is provider-error (122) within seconds, with the error", async () => {
    const w = await makeWorld();
    try {
      await ok(w.sb, ["spawn", "errs", ...KEY, "--env", "CLAUDE_CODE_MAX_RETRIES=0"]);
      stub.script(httpError(500));
      const t = await turn(w.sb, "errs", "this will fail");
      timing("500 → provider-error", t.waitMs);
      expect(t.outcome).toMatchObject({ reason: "provider-error", exitCode: 122 });
      expect(t.outcome.evidence.error).toBe("server_error");
      expect(String(t.outcome.evidence.message)).toStartWith("API Error: 500");
      expect(String(t.outcome.evidence.screen)).toContain("API Error: 500");
      expect(t.waitMs).toBeLessThan(10_000);
      expect(t.code).toBe(122);
      expect(await ok(w.sb, ["read", "errs"])).toMatchObject({ isError: true, turn: "failure" });
    } finally {
      await w.dispose();
    }
  });

  test("a background subagent: wait returns only after the turn that takes its report", async () => {
    const w = await makeWorld();
    try {
      await ok(w.sb, ["spawn", "sub", ...KEY]);
      const t = await turn(w.sb, "sub", "stub:task look around");
      expect(t.outcome.reason).toBe("stop");
      const events = (await w.sb.umbel(["logs", "sub", "--json"])).stdout
        .trim()
        .split("\n")
        .map(
          (line) => JSON.parse(line) as { index: number; event: string; payload: Record<string, unknown> },
        );
      const stops = events.filter((e) => e.event === "Stop");
      const subagentStop = events.findIndex((e) => e.event === "SubagentStop");
      expect(subagentStop).toBeGreaterThan(0);
      // The answer is the last Stop's (after the hand-back), not the first one's.
      expect(stops.length).toBeGreaterThanOrEqual(2);
      expect(t.outcome.evidence.message).toBe(stops.at(-1)?.payload.last_assistant_message);
      expect(t.outcome.evidence.message).toBe("STUB-NOTICE agent-message");
      const firstStopTasks = JSON.stringify(stops[0]?.payload.background_tasks);
      console.log(`[subagent] first Stop's background_tasks: ${firstStopTasks}`);
      expect((await ok(w.sb, ["status", "sub"])).state).toBe("idle");
    } finally {
      await w.dispose();
    }
  });

  test("kill -9 of claude mid-turn is dead (125) with the signal and last screen; kill, then prune", async () => {
    const w = await makeWorld();
    try {
      await ok(w.sb, ["spawn", "doomed", ...KEY]);
      stub.script(hang());
      const sent = await ok(w.sb, ["send", "doomed"], "never answered");
      await stub.waitForRequest((r) => r.kind === "main" && r.answered === "hang");
      const { pid } = await ok(w.sb, ["status", "doomed"]);
      // The pane runs launch.sh's sh; claude is its child.
      const child = Bun.spawnSync(["pgrep", "-P", String(pid)])
        .stdout.toString()
        .trim();
      expect(child).toMatch(/^\d+$/);
      process.kill(Number(child), "SIGKILL");
      const waited = await w.sb.umbel(["wait", "doomed", "--after", String(sent.baseline), "--json"]);
      const outcome = json(waited.stdout);
      expect(outcome).toMatchObject({ reason: "dead", exitCode: 125 });
      expect(outcome.evidence.exit).toEqual({ exitCode: 137, signal: "KILL" });
      expect(String(outcome.evidence.screen)).toContain("never answered");
      expect(waited.code).toBe(125);

      expect((await w.sb.umbel(["kill", "doomed"])).code).toBe(0);
      expect(await ok(w.sb, ["status", "doomed"])).toMatchObject({ state: "killed" });
      expect((await ok(w.sb, ["prune"])).removed).toEqual(["doomed"]);
      expect(existsSync(join(w.sb.root, "sessions", "doomed"))).toBe(false);
    } finally {
      await w.dispose();
    }
  });
});
