// The real codex-cli 0.171.0 through dist/umbel against the stub model, with a "user" CODEX_HOME
// that points codex at the stub: spawn in an untrusted folder, turns, a byte-exact 20 KB prompt,
// `-p` text/json, a permission answered with `umbel keys`, an API error, kill -9 → dead, kill;
// claude's launch flags on codex (system prompts, --add-dir, --mcp-config with `umbel mcp`, -c).
// One worker carries every interactive case (one spawn keeps the file fast). Skipped locally when
// `npm run setup:real` has not run; UMBEL_REQUIRE_REAL=1 (CI) makes that a failure.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { seedCodexWorld, stubProviderToml } from "../helpers/codex-world.ts";
import { createSandbox, type Sandbox, UMBEL } from "../helpers/sandbox.ts";
import { renderPromptEcho } from "../stub-model/digest.ts";
import { hang, httpError, text } from "../stub-model/replies.ts";
import { type StubModel, startStubModel } from "../stub-model/stub-model.ts";
import type { StubRequest } from "../stub-model/types.ts";
import { requireRealCodex } from "./real-codex.ts";

// The real CLI on real tmux takes seconds a test, minutes a file; bun's default is 5 s (declared
// here: a preload's setDefaultTimeout reaches only the first file of a run, oven-sh/bun#43787).
setDefaultTimeout(120_000);

const codex = requireRealCodex("test/real/codex.test.ts");
type Json = Record<string, unknown> & { evidence: Record<string, unknown> };
const json = (s: string) => JSON.parse(s) as Json;

describe.skipIf(codex === null)("real codex through dist/umbel", () => {
  let stub: StubModel;
  let sb: Sandbox;
  let userHome: string;
  beforeAll(async () => {
    stub = await startStubModel({ dialect: "openai" });
    // untrusted: nothing marks the work folder as trusted (umbel's profile must).
    sb = await createSandbox({ untrusted: true });
    userHome = seedCodexWorld(join(sb.dir, "codex"), stubProviderToml(stub.url)).userCodexHome;
    Object.assign(sb.env, { UMBEL_CODEX_BIN: codex ?? "codex", CODEX_HOME: userHome });
  });
  afterAll(async () => {
    await sb?.dispose();
    await stub?.stop();
  });

  async function ok(args: string[], stdin?: string): Promise<Json> {
    const r = await sb.umbel([...args, "--json"], stdin === undefined ? {} : { stdin });
    if (r.code !== 0) throw new Error(`umbel ${args.join(" ")} → ${r.code}\n${r.stdout}${r.stderr}`);
    return json(r.stdout);
  }

  async function turn(name: string, prompt: string) {
    const sent = await ok(["send", name], prompt);
    const after = String(sent.baseline);
    const waited = await sb.umbel(["wait", name, "--after", after, "--json", "--timeout", "60s"]);
    return { baseline: sent.baseline as number, outcome: json(waited.stdout), code: waited.code };
  }

  describe("one worker", () => {
    const userConfig = () => readFileSync(join(userHome, "config.toml"), "utf8");
    let configBefore = "";

    test("spawn in an untrusted folder is ready; send → wait (stop) → read", async () => {
      configBefore = userConfig();
      const spawned = await ok(["spawn", "rc", "--provider", "codex", "--start-timeout", "60s"]);
      expect(spawned.state).toBe("ready");
      stub.script(text("hello from the stub"));
      const t = await turn("rc", "say hello");
      expect(t.outcome).toMatchObject({ reason: "stop", exitCode: 0 });
      expect(t.code).toBe(0);
      expect((await sb.umbel(["read", "rc"])).stdout).toBe("hello from the stub\n");
      // The trust lives in umbel's profile, not in the user's config or the project.
      expect(userConfig()).toBe(configBefore);
      expect(existsSync(join(sb.work, ".codex"))).toBe(false);
    });

    test("a multi-line and a 20 KB prompt arrive byte-exact", async () => {
      const multi = "first line\n  second, indented\n\n\"dq\" 'sq' $HOME `tick` \\back\n日本語 🎉 end?";
      const big = Array.from({ length: 400 }, (_, i) => `${i}: ${"x".repeat(45)}`).join("\n");
      expect(big.length).toBeGreaterThan(20_000);
      for (const prompt of [multi, big]) {
        const t = await turn("rc", prompt);
        expect(t.outcome.reason).toBe("stop");
        expect(stub.mainRequests().at(-1)?.prompt).toBe(prompt);
        expect((await sb.umbel(["read", "rc"])).stdout).toBe(`${renderPromptEcho(prompt)}\n`);
      }
    });

    test("two consecutive turns: read returns the second answer; --after the first returns the first", async () => {
      stub.script(text("first answer"), text("second answer"));
      const first = await turn("rc", "one");
      const second = await turn("rc", "two");
      expect([first.outcome.reason, second.outcome.reason]).toEqual(["stop", "stop"]);
      expect((await sb.umbel(["read", "rc"])).stdout).toBe("second answer\n");
      const earlier = await sb.umbel(["read", "rc", "--after", String(first.baseline)]);
      expect(earlier.stdout).toBe("first answer\n");
    });

    test("a permission request: wait says input (126); keys y approves; the turn stops", async () => {
      const asked = await turn("rc", "stub:escalate touch escalated.txt");
      expect(asked.outcome).toMatchObject({ reason: "input", exitCode: 126 });
      expect(asked.outcome.evidence.prompt).toBe("Bash: touch escalated.txt (stub escalation)");
      expect(String(asked.outcome.evidence.screen)).toContain("Would you like to run the following command?");
      expect(asked.code).toBe(126);
      expect((await ok(["status", "rc"])).state).toBe("needs-input");

      expect((await sb.umbel(["keys", "rc", "y"])).code).toBe(0);
      const done = await sb.umbel([
        "wait",
        "rc",
        "--after",
        String(asked.baseline),
        "--json",
        "--timeout",
        "60s",
      ]);
      expect(json(done.stdout).reason).toBe("stop");
      expect((await sb.umbel(["read", "rc"])).stdout).toStartWith("STUB-TOOL-RESULT is_error=false");
      expect(existsSync(join(sb.work, "escalated.txt"))).toBe(true);
    });

    test("an API error (401) is provider-error (122) with codex's message", async () => {
      stub.script(httpError(401));
      const t = await turn("rc", "this one fails");
      expect(t.outcome).toMatchObject({ reason: "provider-error", exitCode: 122 });
      expect(String(t.outcome.evidence.message)).toStartWith("unexpected status 401 Unauthorized");
      expect(t.code).toBe(122);
      expect((await ok(["status", "rc"])).state).toBe("idle");
    });

    test("kill -9 of codex mid-turn is dead (125); kill removes the profile; prune", async () => {
      stub.script(hang());
      const sent = await ok(["send", "rc"], "never answered");
      await stub.waitForRequest((r) => r.kind === "main" && r.answered === "hang");
      const { pid } = await ok(["status", "rc"]);
      // The pane runs launch.sh's sh; codex (node exec'd into the native binary) is its child.
      const child = Bun.spawnSync(["pgrep", "-P", String(pid)])
        .stdout.toString()
        .trim();
      expect(child).toMatch(/^\d+$/);
      process.kill(Number(child), "SIGKILL");
      const waited = await sb.umbel([
        "wait",
        "rc",
        "--after",
        String(sent.baseline),
        "--json",
        "--timeout",
        "30s",
      ]);
      const outcome = json(waited.stdout);
      expect(outcome).toMatchObject({ reason: "dead", exitCode: 125 });
      expect(outcome.evidence.exit).toEqual({ exitCode: 137, signal: "KILL" });
      expect(waited.code).toBe(125);

      const profile = join(realpathSync(sb.root), "codex-home", "umbel-rc.config.toml");
      expect(existsSync(profile)).toBe(true);
      expect((await sb.umbel(["kill", "rc"])).code).toBe(0);
      expect(existsSync(profile)).toBe(false);
      expect((await ok(["prune"])).removed).toEqual(["rc"]);
      expect(existsSync(join(sb.work, ".codex"))).toBe(false);
    });
  });

  test("umbel -p --provider codex: text and json", async () => {
    stub.script(text("printed answer"), text("json answer"));
    const r = await sb.umbel(["-p", "--provider", "codex", "print it"]);
    expect(r.stdout).toBe("printed answer\n");
    expect(r.code).toBe(0);
    const j = await sb.umbel(["-p", "--provider", "codex", "--output-format", "json", "as json"]);
    expect(j.code).toBe(0);
    expect(JSON.parse(j.stdout)).toMatchObject({
      type: "result",
      subtype: "success",
      is_error: false,
      result: "json answer",
    });
    expect((await sb.umbel(["ls"])).stdout).not.toContain("p-");
  });

  test("an untrusted git checkout: spawn and -p ask nothing, and no trust is kept for it anywhere", async () => {
    // codex asks to trust a git checkout it has no entry for ("Your trust decision will be saved").
    const repo = join(sb.dir, "checkout");
    mkdirSync(repo);
    expect(Bun.spawnSync(["git", "init", "-q", repo]).exitCode).toBe(0);
    const folder = realpathSync(repo);
    const userConfig = () => readFileSync(join(userHome, "config.toml"), "utf8");
    const before = userConfig();
    stub.script(text("from -p"));
    const printed = await sb.umbel(["-p", "--provider", "codex", "--cwd", repo, "hi"]);
    expect(printed.stdout).toBe("from -p\n");
    expect(printed.stderr).toBe("");
    expect(printed.code).toBe(0);
    const r = await sb.umbel(["spawn", "rt", "--provider", "codex", "--cwd", repo, "--json"]);
    expect(r.code).toBe(0);
    // umbel's profile trusts the folder for the worker: no dialog to answer, nothing to say.
    expect(JSON.parse(r.stdout).dialogs).toEqual([]);
    expect(r.stderr).toBe("");
    expect((await sb.umbel(["kill", "rt", "--purge"])).code).toBe(0);
    expect(userConfig()).toBe(before);
    // umbel's shared codex home keeps no trust for it either (only the removed profile had one).
    expect(readFileSync(join(sb.root, "codex-home", "config.toml"), "utf8")).not.toContain(folder);
    expect(existsSync(join(repo, ".codex"))).toBe(false);
  });

  describe("claude's launch flags", () => {
    type Item = { role?: string; content?: { text?: string }[] };
    type Tool = { name?: string; type?: string; tools?: { name: string }[] };
    const texts = (request: StubRequest | undefined, role: string) =>
      ((request?.body as { input?: Item[] } | undefined)?.input ?? [])
        .filter((item) => item.role === role)
        .flatMap((item) => (item.content ?? []).map((part) => part.text ?? ""));

    test("--system-prompt replaces codex's instructions; --append-system-prompt, --add-dir and --mcp-config arrive", async () => {
      const system = 'You are STUB-SYSTEM. "Quoted", \\ backslash,\nsecond line ünïcødé ✓';
      const appended = "APPENDED developer text\twith a tab 🎉";
      const extra = join(sb.dir, "extra dir");
      mkdirSync(extra);
      // `umbel mcp` as a stdio server, through sh to record the environment codex gives it.
      const envFile = join(sb.dir, "mcp-env.txt");
      const server = {
        command: "sh",
        args: ["-c", `env > '${envFile}'; exec "$0" mcp`, UMBEL],
        env: { OWN: "own" },
      };
      stub.script(text("flags answer"));
      const r = await sb.umbel([
        "-p",
        "--provider",
        "codex",
        "with every flag",
        "--system-prompt",
        system,
        "--append-system-prompt",
        appended,
        "--mcp-config",
        JSON.stringify({ mcpServers: { umbel: server } }),
        "--env",
        "PASSED=yes",
        "--add-dir",
        extra,
        // codex's TUI takes no --add-dir in the read-only sandbox -p runs it in by default.
        "--permission-mode",
        "default",
      ]);
      expect(r.stdout).toBe("flags answer\n");
      expect(r.code).toBe(0);
      const request = stub.mainRequests().at(-1);
      const developer = texts(request, "developer");
      // The system prompt is the first developer message: codex's ~17 KB built-in one is gone.
      expect(developer[0]).toBe(system);
      expect(developer.some((t) => t.startsWith("You are a coding agent running in the Codex CLI"))).toBe(
        false,
      );
      expect(developer).toContain(appended);
      const context = texts(request, "user").find((t) => t.startsWith("<environment_context>")) ?? "";
      expect(context).toContain(`<root>${realpathSync(extra)}</root>`);
      const tools = (request?.body as { tools?: Tool[] } | undefined)?.tools ?? [];
      const umbel = tools.find((tool) => tool.name === "mcp__umbel");
      expect(umbel?.tools?.map((tool) => tool.name)).toEqual(
        expect.arrayContaining(["umbel_spawn", "umbel_send", "umbel_wait", "umbel_read", "umbel_kill"]),
      );
      // codex hands a stdio server HOME, LANG, PATH, TERM, TMPDIR and its env only; umbel forwards
      // the worker's environment as claude would (UMBEL_HOME: the server sees this state root).
      const env = readFileSync(envFile, "utf8");
      expect(env).toContain(`UMBEL_HOME=${sb.root}\n`);
      expect(env).toMatch(/^UMBEL_SESSION=p-/m);
      expect(env).toContain("PASSED=yes\n");
      expect(env).toContain("OWN=own\n");
    });

    test("-c continues the newest conversation of its directory (codex resume --last)", async () => {
      const here = join(sb.dir, "here");
      const there = join(sb.dir, "there");
      for (const dir of [here, there]) mkdirSync(dir);
      const p = (dir: string, ...args: string[]) =>
        sb.umbel(["-p", "--provider", "codex", "--cwd", dir, ...args]);
      stub.script(text("noted"), text("other answer"), text("continued"));
      expect((await p(here, "remember the word pelican")).stdout).toBe("noted\n");
      expect((await p(there, "a newer thread elsewhere")).stdout).toBe("other answer\n");
      const r = await p(here, "-c", "what was the word?");
      expect(r.stdout).toBe("continued\n");
      expect(r.code).toBe(0);
      const request = stub.mainRequests().at(-1);
      expect(texts(request, "user").filter((t) => !t.startsWith("<"))).toEqual([
        "remember the word pelican",
        "what was the word?",
      ]);
      expect(texts(request, "assistant")).toEqual(["noted"]);
    });
  });
});
