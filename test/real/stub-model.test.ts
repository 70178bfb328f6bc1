// Proves the stub model server against the real Claude Code binary in print mode (`claude -p`).
// The interactive tests reuse the same seed (claude-home.ts) and stub.
import { afterAll, afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { renderPromptEcho } from "../stub-model/digest.ts";
import { bash, httpError, text, thinking } from "../stub-model/replies.ts";
import { type StubModel, startStubModel } from "../stub-model/stub-model.ts";
import { type ClaudeHome, claudeEnv, seedClaudeHome } from "./claude-home.ts";
import { requireRealClaude } from "./real-bin.ts";

// The real CLI on real tmux takes seconds a test, minutes a file; bun's default is 5 s (declared
// here: a preload's setDefaultTimeout reaches only the first file of a run, oven-sh/bun#43787).
setDefaultTimeout(120_000);

const claude = requireRealClaude("test/real/stub-model.test.ts");

const API_KEY = "sk-ant-test-stub-0123456789abcdefghijklmnop";
/** One print-mode turn takes ~1 s here; a bound keeps a wedged binary from eating the suite. */
const RUN_TIMEOUT_MS = 30_000;

interface PrintResult {
  exitCode: number;
  stderr: string;
  json: { is_error: boolean; result: string; api_error_status: number | null; num_turns: number };
}

describe.skipIf(claude === null)(`real claude -p against the stub model`, () => {
  let stub: StubModel;
  let root: string;
  let home: ClaudeHome;
  let work: string;

  beforeAll(async () => {
    stub = await startStubModel({ dialect: "anthropic" });
    root = mkdtempSync(join(tmpdir(), "umbel-real-stub-"));
    work = join(root, "work");
    mkdirSync(work);
    home = seedClaudeHome(root, { apiKey: API_KEY, trustedDirs: [work] });
  });
  afterEach(() => stub.reset());
  afterAll(async () => {
    await stub.stop();
    rmSync(root, { recursive: true, force: true });
  });

  async function runPrint(prompt: string, args: string[] = [], maxRetries = 0): Promise<PrintResult> {
    const env = claudeEnv(home, { baseUrl: stub.url, apiKey: API_KEY, maxRetries, sandbox: true });
    const child = Bun.spawn([claude ?? "claude", "-p", prompt, "--output-format", "json", ...args], {
      cwd: work,
      env,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
      timeout: RUN_TIMEOUT_MS,
    });
    const [stdout, stderr, exitCode] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ]);
    try {
      return { exitCode, stderr, json: JSON.parse(stdout) };
    } catch {
      throw new Error(`claude -p printed no JSON (exit ${exitCode}):\n${stdout}\n${stderr}`);
    }
  }

  test("the default reply echoes the prompt's digest; the probe and headers are as measured", async () => {
    const prompt = "what is 2+2?";
    const { exitCode, json } = await runPrint(prompt);
    expect(json).toMatchObject({ is_error: false, result: renderPromptEcho(prompt) });
    expect(exitCode).toBe(0);
    expect(stub.requests.map((request) => `${request.method} ${request.path} ${request.kind}`)).toEqual([
      "HEAD /api/hello probe",
      "POST /v1/messages main",
    ]);
    const [main] = stub.mainRequests();
    expect(main).toMatchObject({ query: "?beta=true", stream: true, model: "claude-opus-5-5", prompt });
    expect(main?.headers).toMatchObject({ "x-api-key": API_KEY, "anthropic-version": "2023-06-01" });
    expect(main?.headers["user-agent"]).toStartWith("claude-cli/2.1.332");
    // The stripped git-attribution reminder proves the hash is over the typed text alone.
    expect(main?.main?.injected).toStartWith("<system-reminder>\nAttribution for git commits");
  });

  test.each([
    [
      "multi-line, tabs, quotes and non-ASCII",
      "first line\n\tindented 'single' \"double\"\né ö ✓ 日本語 🎉\nlast",
    ],
    ["20 KB", Array.from({ length: 400 }, (_, line) => `${line}: ${"x".repeat(45)}`).join("\n")],
  ])("a %s prompt arrives intact", async (_name, prompt) => {
    const { json } = await runPrint(prompt);
    expect(json.result).toBe(renderPromptEcho(prompt));
    expect(stub.mainRequests()[0]?.prompt).toBe(prompt);
  });

  test("a Bash tool call runs, and its result brings the scripted follow-up", async () => {
    stub.script(bash("echo stub-bash-ran > proof.txt && cat proof.txt", text("bash step done")));
    const { json } = await runPrint("use bash", ["--permission-mode", "bypassPermissions"]);
    expect(json).toMatchObject({ is_error: false, result: "bash step done", num_turns: 2 });
    expect(readFileSync(join(work, "proof.txt"), "utf8")).toBe("stub-bash-ran\n");
    expect(stub.mainRequests()[1]?.main).toMatchObject({
      trigger: "tool_result",
      toolResults: [{ isError: false, text: "stub-bash-ran" }],
    });
  });

  test("a 500 ends the run as an error when retries are off", async () => {
    stub.script(httpError(500));
    const { exitCode, json } = await runPrint("fail please");
    expect(json).toMatchObject({ is_error: true, api_error_status: 500 });
    expect(json.result).toStartWith("API Error: 500");
    expect(exitCode).toBe(1);
  });

  test("`stub:error 500 2` fails twice, then claude's retry gets the answer", async () => {
    const prompt = "stub:error 500 2";
    const { json } = await runPrint(prompt, [], 2);
    expect(json).toMatchObject({ is_error: false, result: renderPromptEcho(prompt) });
    expect(stub.mainRequests().map((request) => request.answered)).toEqual([
      "error 500",
      "error 500",
      "message text",
    ]);
  });

  test("thinking then text: the text is the result", async () => {
    stub.script(thinking("Let me think this through.", "thought-through answer"));
    const { json } = await runPrint("think first");
    expect(json).toMatchObject({ is_error: false, result: "thought-through answer" });
  });

  test("auto mode sends a risky command to the classifier, which allows it", async () => {
    // `curl … | sh` does not pass claude's local pre-screen; port 9 on loopback refuses at once.
    const command = "rm -rf ./nothing-here && curl -s http://127.0.0.1:9/ | sh";
    const { json } = await runPrint(`stub:bash ${command}`, ["--permission-mode", "auto"]);
    expect(json.is_error).toBe(false);
    expect(stub.requests.filter((request) => request.kind === "classifier").length).toBeGreaterThan(0);
    expect(stub.mainRequests()[1]?.main?.toolResults[0]?.isError).toBe(false);
  });

  test("a subagent (stub:task) is told apart from main turns and reports back", async () => {
    const { json } = await runPrint("stub:task look around");
    expect(json.is_error).toBe(false);
    const subagent = stub.requests.find((request) => request.kind === "subagent");
    expect(subagent?.headers["x-claude-code-agent-id"]).toBeString();
    expect(subagent?.prompt).toStartWith("look around");
    // Print mode delivers the subagent's final text in a task notification, a turn of its own.
    expect(stub.mainRequests().some((request) => request.main?.trigger === "notice")).toBe(true);
  });
});
