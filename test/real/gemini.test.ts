// The real gemini-cli 0.61.0 through dist/umbel against the stub model (GOOGLE_GEMINI_BASE_URL + a
// stub API key): spawn in an untrusted folder, turns, a byte-exact 20 KB prompt, `-p` text/json, a
// permission answered with `umbel keys`, an API error, kill -9 → dead, kill, and claude's launch
// flags as the model request shows them. One worker carries
// every interactive case (one spawn keeps the file fast). Skipped locally when
// `npm run setup:real` has not run; UMBEL_REQUIRE_REAL=1 (CI) makes that a failure.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { STUB_KEY } from "../helpers/gemini-world.ts";
import { createSandbox, type Sandbox, UMBEL } from "../helpers/sandbox.ts";
import { renderPromptEcho } from "../stub-model/digest.ts";
import { bash, hang, httpError, text } from "../stub-model/replies.ts";
import { type StubModel, startStubModel } from "../stub-model/stub-model.ts";
import { requireRealGemini } from "./real-gemini.ts";

// The real CLI on real tmux takes seconds a test, minutes a file; bun's default is 5 s (declared
// here: a preload's setDefaultTimeout reaches only the first file of a run, oven-sh/bun#43787).
setDefaultTimeout(120_000);

const gemini = requireRealGemini("test/real/gemini.test.ts");
type Json = Record<string, unknown> & { evidence: Record<string, unknown> };
const json = (s: string) => JSON.parse(s) as Json;

describe.skipIf(gemini === null)("real gemini through dist/umbel", () => {
  let stub: StubModel;
  let sb: Sandbox;
  beforeAll(async () => {
    stub = await startStubModel({ dialect: "gemini" });
    // untrusted: nothing marks the work folder as trusted (umbel's GEMINI_CLI_TRUST_WORKSPACE must).
    sb = await createSandbox({ untrusted: true });
    Object.assign(sb.env, {
      UMBEL_GEMINI_BIN: gemini ?? "gemini",
      GEMINI_API_KEY: STUB_KEY,
      GOOGLE_GEMINI_BASE_URL: stub.url,
    });
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
    test("spawn in an untrusted folder is ready; send → wait (stop) → read", async () => {
      const spawned = await ok(["spawn", "rg", "--provider", "gemini", "--start-timeout", "60s"]);
      expect(spawned.state).toBe("ready");
      stub.script(text("hello from the stub"));
      const t = await turn("rg", "say hello?");
      expect(t.outcome).toMatchObject({ reason: "stop", exitCode: 0 });
      expect(t.code).toBe(0);
      expect((await sb.umbel(["read", "rg"])).stdout).toBe("hello from the stub\n");
    });

    test("a multi-line and a 20 KB prompt arrive byte-exact", async () => {
      const multi = "first line\n  second, indented\n\n\"dq\" 'sq' $HOME `tick` \\back\n日本語 🎉 end?";
      const big = Array.from({ length: 400 }, (_, i) => `${i}: ${"x".repeat(45)}`).join("\n");
      expect(big.length).toBeGreaterThan(20_000);
      for (const prompt of [multi, big]) {
        const t = await turn("rg", prompt);
        expect(t.outcome.reason).toBe("stop");
        expect(stub.mainRequests().at(-1)?.prompt).toBe(prompt);
        expect((await sb.umbel(["read", "rg"])).stdout).toBe(`${renderPromptEcho(prompt)}\n`);
      }
    });

    test("two consecutive turns: read returns the second answer; --after the first returns the first", async () => {
      stub.script(text("first answer"), text("second answer"));
      const first = await turn("rg", "one");
      const second = await turn("rg", "two");
      expect([first.outcome.reason, second.outcome.reason]).toEqual(["stop", "stop"]);
      expect((await sb.umbel(["read", "rg"])).stdout).toBe("second answer\n");
      const earlier = await sb.umbel(["read", "rg", "--after", String(first.baseline)]);
      expect(earlier.stdout).toBe("first answer\n");
    });

    test("a tool permission: wait says input (126) with the box; keys 1 approves; the turn stops", async () => {
      stub.script(bash("echo approved > approved.txt", text("done after approval")));
      const asked = await turn("rg", "please run it");
      expect(asked.outcome).toMatchObject({ reason: "input", exitCode: 126 });
      expect(asked.outcome.evidence.prompt).toBe("Shell: echo approved > approved.txt");
      expect(String(asked.outcome.evidence.screen)).toContain("Allow execution of [Shell]?");
      expect(asked.code).toBe(126);
      expect((await ok(["status", "rg"])).state).toBe("needs-input");

      expect((await sb.umbel(["keys", "rg", "1"])).code).toBe(0);
      const done = await sb.umbel([
        "wait",
        "rg",
        "--after",
        String(asked.baseline),
        "--json",
        "--timeout",
        "60s",
      ]);
      expect(json(done.stdout).reason).toBe("stop");
      expect((await sb.umbel(["read", "rg"])).stdout).toBe("done after approval\n");
      expect(readFileSync(join(sb.work, "approved.txt"), "utf8")).toBe("approved\n");
    });

    test("an API error (400) is provider-error (122) with the error; the worker stays usable", async () => {
      stub.script(httpError(400));
      const t = await turn("rg", "this one fails");
      expect(t.outcome).toMatchObject({ reason: "provider-error", exitCode: 122 });
      expect(String(t.outcome.evidence.message)).toContain("API Error");
      expect(String(t.outcome.evidence.message)).toContain("stub error 400");
      expect(t.code).toBe(122);
      stub.script(text("after the error"));
      expect((await turn("rg", "again")).outcome.reason).toBe("stop");
      expect((await sb.umbel(["read", "rg"])).stdout).toBe("after the error\n");
    });

    test("kill -9 of gemini mid-turn is dead (125); kill; prune; nothing in the project or ~/.gemini", async () => {
      stub.script(hang());
      const sent = await ok(["send", "rg"], "never answered");
      await stub.waitForRequest((r) => r.kind === "main" && r.answered === "hang");
      const { pid } = await ok(["status", "rg"]);
      // The pane runs launch.sh's sh; gemini (node, no relaunch) is its child.
      const child = Bun.spawnSync(["pgrep", "-P", String(pid)])
        .stdout.toString()
        .trim();
      expect(child).toMatch(/^\d+$/);
      process.kill(Number(child), "SIGKILL");
      const waited = await sb.umbel([
        "wait",
        "rg",
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

      expect((await sb.umbel(["kill", "rg"])).code).toBe(0);
      expect((await ok(["prune"])).removed).toEqual(["rg"]);
      expect(existsSync(join(sb.work, ".gemini"))).toBe(false);
      expect(existsSync(join(sb.dir, "home", ".gemini"))).toBe(false);
    });
  });

  test("a fresh untrusted folder: spawn and -p ask nothing, and no trust is kept for it anywhere", async () => {
    const folder = join(sb.dir, "fresh");
    mkdirSync(folder);
    const userTrust = join(sb.dir, "home", ".gemini", "trustedFolders.json");
    stub.script(text("from -p"));
    const printed = await sb.umbel(["-p", "--provider", "gemini", "--cwd", folder, "hi"]);
    expect(printed.stdout).toBe("from -p\n");
    expect(printed.stderr).toBe("");
    expect(printed.code).toBe(0);
    const r = await sb.umbel(["spawn", "gt", "--provider", "gemini", "--cwd", folder, "--json"]);
    expect(r.code).toBe(0);
    // GEMINI_CLI_TRUST_WORKSPACE trusts it for the worker's session: no box to answer, nothing said.
    expect(JSON.parse(r.stdout).dialogs).toEqual([]);
    expect(r.stderr).toBe("");
    // Not in the worker's own home (gemini's trustedFolders.json there), nor in the user's.
    expect(existsSync(join(sb.root, "sessions", "gt", "gemini", ".gemini", "trustedFolders.json"))).toBe(
      false,
    );
    expect((await sb.umbel(["kill", "gt", "--purge"])).code).toBe(0);
    expect(existsSync(userTrust)).toBe(false);
    expect(existsSync(join(folder, ".gemini"))).toBe(false);
  });

  test("umbel -p --provider gemini: text and json", async () => {
    stub.script(text("printed answer"), text("json answer"));
    const r = await sb.umbel(["-p", "--provider", "gemini", "print it"]);
    expect(r.stdout).toBe("printed answer\n");
    expect(r.code).toBe(0);
    const j = await sb.umbel(["-p", "--provider", "gemini", "--output-format", "json", "as json"]);
    expect(j.code).toBe(0);
    expect(JSON.parse(j.stdout)).toMatchObject({
      type: "result",
      subtype: "success",
      is_error: false,
      result: "json answer",
    });
    expect((await sb.umbel(["ls"])).stdout).not.toContain("p-");
  });

  test("claude's launch flags on gemini: system prompt, append, --add-dir, MCP servers, excluded tools", async () => {
    const extra = join(sb.dir, "extra");
    mkdirSync(extra, { recursive: true });
    writeFileSync(join(extra, "marker-in-extra.txt"), "x");
    const userDir = join(sb.dir, "home", ".gemini");
    mkdirSync(userDir, { recursive: true });
    writeFileSync(join(userDir, "GEMINI.md"), "USER MEMORY LINE\n");
    const mcp = JSON.stringify({ mcpServers: { umbel: { command: UMBEL, args: ["mcp"] } } });
    stub.script(text("flags seen"));
    try {
      // yolo: a non-interactive worker in gemini's default mode leaves out the tools that would ask
      // and untrusted MCP servers, as gemini -p does (docs/cli-reference.md, "Permissions").
      const r = await sb.umbel([
        "-p",
        "show me the flags",
        "--provider",
        "gemini",
        "--dangerously-skip-permissions",
        "--system-prompt",
        "SYSTEM TEXT FROM UMBEL",
        "--append-system-prompt",
        "APPENDED TEXT FROM UMBEL",
        "--add-dir",
        extra,
        "--mcp-config",
        mcp,
        "--disallowed-tools",
        "run_shell_command",
        "mcp_umbel_umbel_ls",
      ]);
      expect(r.stdout).toBe("flags seen\n");
      expect(r.code).toBe(0);
    } finally {
      rmSync(userDir, { recursive: true, force: true });
    }
    const request = lastRequest();
    // --system-prompt replaced gemini's core prompt; the context files follow it.
    expect(request.system).toStartWith("SYSTEM TEXT FROM UMBEL\n\n# Contextual Instructions (GEMINI.md)\n");
    expect(request.system).not.toContain("You are Gemini CLI");
    // --append-system-prompt ends the system instruction, after the user's GEMINI.md, in gemini's frame.
    expect(request.system.slice(request.system.indexOf("<loaded_context>"))).toMatch(
      /^<loaded_context>\n--- Context from: \S+\/gemini\/\.gemini\/GEMINI\.md ---\nUSER MEMORY LINE\n\nAPPENDED TEXT FROM UMBEL\n--- End of Context from: \S+ ---\n<\/loaded_context>$/,
    );
    expect(JSON.stringify(request.body.contents)).not.toContain("APPENDED TEXT FROM UMBEL");
    // --add-dir: a workspace directory of the session (its trust box answered by spawn).
    expect(request.body.contents[0]?.parts[0]?.text).toContain(
      `- **Workspace Directories:**\n  - ${sb.work}\n  - ${extra}\n`,
    );
    // --mcp-config: dist/umbel mcp's tools, named mcp_<server>_<tool>; --disallowed-tools took two away.
    expect(request.tools).toContain("mcp_umbel_umbel_spawn");
    expect(request.tools).toContain("write_file");
    expect(request.tools).not.toContain("mcp_umbel_umbel_ls");
    expect(request.tools).not.toContain("run_shell_command");

    stub.script(text("append only"));
    const only = await sb.umbel([
      "-p",
      "again",
      "--provider",
      "gemini",
      "--dangerously-skip-permissions",
      "--append-system-prompt",
      "ONLY APPENDED @settings.json",
    ]);
    expect(only.stdout).toBe("append only\n");
    const plain = lastRequest();
    expect(plain.system).toStartWith("You are Gemini CLI, an interactive CLI agent");
    // ` @settings.json` would import the worker's settings.json; the WORD JOINER keeps it text.
    expect(plain.system).toMatch(
      /\nONLY APPENDED \u2060@settings\.json\n--- End of Context from: \S+ ---\n<\/loaded_context>$/,
    );
    expect(plain.tools).toContain("run_shell_command");
  });

  function lastRequest() {
    const body = stub.mainRequests().at(-1)?.body as GeminiBody;
    return {
      body,
      system: body.systemInstruction.parts.map((part) => part.text).join(""),
      tools: body.tools.flatMap((group) => group.functionDeclarations?.map((fn) => fn.name) ?? []),
    };
  }
});

type GeminiBody = {
  systemInstruction: { parts: { text: string }[] };
  contents: { role: string; parts: { text?: string }[] }[];
  tools: { functionDeclarations?: { name: string }[] }[];
};
