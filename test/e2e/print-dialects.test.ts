import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSandbox, type Sandbox } from "../helpers/sandbox.ts";

// Workers on real tmux take seconds a test; bun's default is 5 s (declared here: a preload's
// setDefaultTimeout reaches only the first file of a run, oven-sh/bun#43787).
setDefaultTimeout(90_000);

/**
 * Issue 18: `umbel -p --dialect gemini` and `umbel exec` print gemini -p's and codex exec's own
 * shapes, for any provider's turn (here the fake CLIs; test/real/print-parity-{gemini,codex}.test.ts
 * holds them equal to the real gemini -p 0.61.0 and codex exec 0.171.0 on the stub model).
 */
const PROVIDERS = ["claude", "codex", "gemini", "opencode"] as const;
type Json = Record<string, unknown>;
const lines = (stdout: string) =>
  stdout
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l) as Json);
const keys = (value: unknown) => Object.keys((value ?? {}) as object).sort();

let sb: Sandbox;
/** config.toml's `[accounts.work]`: a claude sign-in of its own (each dialect's --account). */
let accountHome: string;
beforeAll(async () => {
  // The dialects' output on claude's worker unless a test names the provider (each dialect's own
  // default provider is test/e2e/default-provider.test.ts's).
  sb = await createSandbox({ env: { GEMINI_API_KEY: "fake-key", UMBEL_PROVIDER: "claude" } });
  accountHome = join(sb.dir, "claude-work");
  mkdirSync(accountHome);
  // The fake claude keeps its trusted folders in its config dir, as the real one keeps .claude.json.
  copyFileSync(join(sb.cfg, "fake-trusted"), join(accountHome, "fake-trusted"));
  mkdirSync(sb.root, { recursive: true, mode: 0o700 });
  writeFileSync(
    join(sb.root, "config.toml"),
    `[accounts.work]\nprovider = "claude"\nhome = "${accountHome}"\n`,
  );
});
afterAll(async () => {
  await sb.dispose();
});

const sessions = () => (existsSync(join(sb.root, "sessions")) ? readdirSync(join(sb.root, "sessions")) : []);

describe("umbel -p --dialect gemini", () => {
  test("json: gemini's object (response, stats with per-model tokens and tool counts) for every provider", async () => {
    const runs = await Promise.all(
      PROVIDERS.map((p) =>
        sb.umbel(["-p", "--dialect", "gemini", "--provider", p, "-o", "json", "fake:tools 1"]),
      ),
    );
    for (const [i, provider] of PROVIDERS.entries()) {
      const run = runs[i] ?? { stdout: "", stderr: "", code: -1 };
      // gemini prints the object pretty, with no newline after it (measured).
      expect(run.stdout).toStartWith('{\n  "session_id": ');
      expect(run.stdout.endsWith("}")).toBe(true);
      const out = JSON.parse(run.stdout) as Json;
      expect({ provider, keys: keys(out) }).toEqual({
        provider,
        keys: ["response", "session_id", "stats", "umbel"],
      });
      expect(out.response).toBe("FAKE-TOOLS-DONE n=1");
      const stats = out.stats as { models: Record<string, Json>; tools: Json; files: Json };
      const [model] = Object.values(stats.models);
      expect({ provider, model: keys(model) }).toEqual({ provider, model: ["api", "roles", "tokens"] });
      expect((model?.api as Json | undefined)?.totalRequests).toBe(2);
      expect(keys(model?.tokens)).toEqual([
        "cached",
        "candidates",
        "input",
        "prompt",
        "thoughts",
        "tool",
        "total",
      ]);
      expect(stats.tools).toMatchObject({ totalCalls: 1, totalSuccess: 1, totalFail: 0 });
      expect(stats.files).toEqual({ totalLinesAdded: 0, totalLinesRemoved: 0 });
      expect(out.umbel).toMatchObject({ provider, outcome: "stop", exitCode: 0 });
      expect(run.code).toBe(0);
    }
    expect(sessions()).toEqual([]);
  });

  test("stream-json: init, the prompt, the tool call and its result, the answer, the result", async () => {
    const run = await sb.umbel(["-p", "--dialect", "gemini", "-o", "stream-json", "fake:tools 1"]);
    const out = lines(run.stdout);
    expect(out.map((e) => e.type)).toEqual([
      "init",
      "message",
      "tool_use",
      "tool_result",
      "message",
      "result",
    ]);
    expect(out[1]).toMatchObject({ role: "user", content: "fake:tools 1" });
    expect(keys(out[2])).toEqual(["parameters", "timestamp", "tool_id", "tool_name", "type"]);
    expect(out[3]).toMatchObject({ tool_id: out[2]?.tool_id, status: "success", output: "step1" });
    expect(out[4]).toMatchObject({ role: "assistant", content: "FAKE-TOOLS-DONE n=1", delta: true });
    expect(out[5]).toMatchObject({ status: "success", stats: { tool_calls: 1 } });
    expect(keys(out[5]?.stats)).toEqual([
      "cached",
      "duration_ms",
      "input",
      "input_tokens",
      "models",
      "output_tokens",
      "tool_calls",
      "total_tokens",
    ]);
    expect(run.code).toBe(0);
  });

  test("text, stdin before -p's value; UMBEL_DIALECT sets the default", async () => {
    const run = await sb.umbel(["-p", "from the flag"], {
      stdin: "stdin first\n",
      env: { UMBEL_DIALECT: "gemini" },
    });
    // gemini -p's prompt is stdin, a blank line, then -p's value (the fake shows newlines as spaces).
    expect(run.stdout).toMatch(/^FAKE-REPLY len=26 sha=[0-9a-f]{12} head=stdin first {2}from the flag\n$/);
    const echo = await sb.umbel(["-p", "--dialect", "gemini", "-p", "fake:reply plain"]);
    expect(echo.stdout).toBe("plain\n");
    expect(echo.code).toBe(0);
  });

  test("an API error: json on stderr with its code, exit status modulo 256; text exits 1", async () => {
    const [json, stream, text] = await Promise.all([
      sb.umbel(["-p", "--dialect", "gemini", "-o", "json", "fake:error"]),
      sb.umbel(["-p", "--dialect", "gemini", "-o", "stream-json", "fake:error"]),
      sb.umbel(["-p", "--dialect", "gemini", "fake:error"]),
    ]);
    expect(json.stdout).toBe("");
    const error = JSON.parse(json.stderr) as Json;
    expect(keys(error)).toEqual(["error", "session_id", "umbel"]);
    expect(error.error).toMatchObject({ type: "Error", code: 500, message: expect.stringContaining("500") });
    expect(json.code).toBe(500 % 256);
    const result = lines(stream.stdout).at(-1);
    expect(result).toMatchObject({ type: "result", status: "error", error: { type: "unknown" } });
    expect(String((result?.error as Json | undefined)?.message)).toStartWith("[API Error: ");
    expect(stream.code).toBe(244);
    expect(text.stdout).toBe("");
    expect(text.stderr).toContain("API Error: 500");
    expect(text.code).toBe(1);
  });

  test("usage errors name the flag: claude's flags are not gemini's", async () => {
    const [maxTurns, sandbox, help] = await Promise.all([
      sb.umbel(["-p", "--dialect", "gemini", "--max-turns", "1", "hi"]),
      sb.umbel(["--prompt", "hi", "--dialect", "gemini", "--sandbox"]),
      sb.umbel(["-p", "--dialect", "gemini", "--help"]),
    ]);
    expect(maxTurns.stderr).toBe(
      "umbel: unknown option '--max-turns' (see umbel -p --dialect gemini --help)\n",
    );
    expect(maxTurns.code).toBe(2);
    expect(sandbox.stderr).toBe(
      "umbel: umbel -p --dialect gemini does not support --sandbox (see umbel -p --dialect gemini --help)\n",
    );
    expect(sandbox.code).toBe(2);
    expect(help.stdout).toContain("--approval-mode MODE");
    expect(help.code).toBe(0);
  });

  test("--account NAME (umbel's): the worker runs on that account's home; an unknown one is exit 2", async () => {
    const [run, unknown] = await Promise.all([
      sb.umbel(["-p", "--dialect", "gemini", "--account", "work", "-p", "fake:env CLAUDE_CONFIG_DIR"]),
      sb.umbel(["-p", "--dialect", "gemini", "--account", "wrok", "-p", "hi"]),
    ]);
    expect(run.stdout).toBe(`ENV CLAUDE_CONFIG_DIR=${accountHome}\n`);
    expect(run.code).toBe(0);
    expect(unknown.stderr).toContain("did you mean work?");
    expect(unknown.code).toBe(2);
    expect(sessions()).toEqual([]);
  });
});

describe("umbel exec", () => {
  test("--json: thread, turn, the command as started and completed, the message, usage; every provider", async () => {
    const runs = await Promise.all(
      PROVIDERS.map((p) => sb.umbel(["exec", "--json", "--provider", p, "fake:tools 1"])),
    );
    for (const [i, provider] of PROVIDERS.entries()) {
      const run = runs[i] ?? { stdout: "", stderr: "", code: -1 };
      const out = lines(run.stdout);
      const kinds = out.map((e) => [e.type, (e.item as Json | undefined)?.type ?? null]);
      expect({ provider, kinds }).toEqual({
        provider,
        kinds: [
          ["thread.started", null],
          ["turn.started", null],
          ["item.started", "command_execution"],
          ["item.completed", "command_execution"],
          ["item.completed", "agent_message"],
          ["turn.completed", null],
        ],
      });
      expect(out[0]?.thread_id).toEqual(expect.any(String));
      expect(out[3]?.item).toMatchObject({ command: "echo step1", exit_code: 0, status: "completed" });
      expect(String((out[3]?.item as Json | undefined)?.aggregated_output)).toContain("step1");
      expect(out[4]?.item).toMatchObject({ text: "FAKE-TOOLS-DONE n=1" });
      expect(keys(out[5]?.usage)).toEqual([
        "cache_write_input_tokens",
        "cached_input_tokens",
        "input_tokens",
        "output_tokens",
        "reasoning_output_tokens",
      ]);
      expect(run.code).toBe(0);
    }
  });

  test("plain: the final message on stdout, progress on stderr; -o writes it to a file", async () => {
    const run = await sb.umbel(["exec", "-o", "last.txt", "fake:tools 1"]);
    expect(run.stdout).toBe("FAKE-TOOLS-DONE n=1\n");
    expect(run.stderr).toContain("exec\necho step1\n succeeded:\nstep1\n");
    expect(run.stderr).toContain("tokens used\n");
    expect(readFileSync(join(sb.work, "last.txt"), "utf8")).toBe("FAKE-TOOLS-DONE n=1");
    expect(run.code).toBe(0);
  });

  test("a failed turn: error and turn.failed, exit 1; -o gets an empty file (as codex writes it)", async () => {
    const [json, text] = await Promise.all([
      sb.umbel(["exec", "--json", "-o", "failed.txt", "fake:error"]),
      sb.umbel(["exec", "fake:error"]),
    ]);
    const out = lines(json.stdout);
    expect(out.map((e) => e.type)).toEqual(["thread.started", "turn.started", "error", "turn.failed"]);
    expect(out[3]).toMatchObject({ error: { message: expect.stringContaining("API Error: 500") } });
    expect(json.code).toBe(1);
    expect(readFileSync(join(sb.work, "failed.txt"), "utf8")).toBe("");
    expect(text.stdout).toBe("");
    expect(text.stderr).toContain("ERROR: API Error: 500");
    expect(text.code).toBe(1);
  });

  test("--output-schema: the final agent_message is the object's JSON (umbel's StructuredOutput)", async () => {
    writeFileSync(
      join(sb.work, "schema.json"),
      JSON.stringify({ type: "object", properties: { answer: { type: "string" } }, required: ["answer"] }),
    );
    const run = await sb.umbel([
      "exec",
      "--json",
      "--output-schema",
      "schema.json",
      'fake:mcp StructuredOutput {"answer":"yes"}',
    ]);
    const out = lines(run.stdout);
    const messages = out.filter((e) => (e.item as Json | undefined)?.type === "agent_message");
    expect(messages.map((e) => (e.item as Json).text)).toEqual(['{"answer":"yes"}']);
    expect(out.some((e) => (e.item as Json | undefined)?.type === "mcp_tool_call")).toBe(false);
    expect(run.code).toBe(0);
    const missing = await sb.umbel(["exec", "--output-schema", "nope.json", "x"]);
    expect(missing.stderr).toStartWith("umbel: Failed to read output schema file ");
    expect(missing.code).toBe(2);
  });

  test("--account NAME (umbel's): the worker runs on that account's home; an unknown one is exit 2", async () => {
    const [run, unknown] = await Promise.all([
      sb.umbel(["exec", "--account", "work", "fake:env CLAUDE_CONFIG_DIR"]),
      sb.umbel(["exec", "--account", "wrok", "hi"]),
    ]);
    expect(run.stdout).toBe(`ENV CLAUDE_CONFIG_DIR=${accountHome}\n`);
    expect(run.code).toBe(0);
    expect(unknown.stderr).toContain("did you mean work?");
    expect(unknown.code).toBe(2);
    expect(sessions()).toEqual([]);
  });

  test("resume NAME and resume --last continue the conversation", async () => {
    const first = await sb.umbel(["exec", "--name", "ex1", "fake:reply one"]);
    expect(first.code).toBe(0);
    const again = await sb.umbel(["exec", "resume", "ex1", "fake:history"]);
    expect(again.stdout).toStartWith("HISTORY n=1 ");
    const last = await sb.umbel(["exec", "resume", "--last", "fake:history"]);
    expect(last.stdout).toStartWith("HISTORY n=2 ");
    expect((await sb.umbel(["kill", "ex1", "--purge"])).code).toBe(0);
  });

  test("-p --dialect codex is the same face; flags codex exec lacks are usage errors naming them", async () => {
    const [viaP, config, claudeFlag, otherDialect, help] = await Promise.all([
      sb.umbel(["-p", "--dialect", "codex", "--json", "fake:reply p"]),
      sb.umbel(["exec", "-c", "model=x", "hi"]),
      sb.umbel(["exec", "--output-format", "json", "hi"]),
      sb.umbel(["exec", "--dialect", "gemini", "hi"]),
      sb.umbel(["exec", "--help"]),
    ]);
    expect(lines(viaP.stdout).map((e) => e.type)).toEqual([
      "thread.started",
      "turn.started",
      "item.completed",
      "turn.completed",
    ]);
    expect(config.stderr).toBe("umbel: umbel exec does not support -c (see umbel exec --help)\n");
    expect(claudeFlag.stderr).toBe("umbel: unknown option '--output-format' (see umbel exec --help)\n");
    expect(otherDialect.stderr).toBe(
      "umbel: umbel exec is codex exec's dialect; for gemini's, use umbel -p --dialect gemini\n",
    );
    for (const r of [config, claudeFlag, otherDialect]) expect(r.code).toBe(2);
    expect(help.stdout).toStartWith("Usage: umbel exec [flags] [PROMPT]");
    expect(sessions()).toEqual([]);
  });
});
