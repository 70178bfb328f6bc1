import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sendAndWait, spawnOk } from "../helpers/cli.ts";
import { createSandbox, eventually, type Sandbox } from "../helpers/sandbox.ts";

// Workers on real tmux take seconds a test; bun's default is 5 s (declared here: a preload's
// setDefaultTimeout reaches only the first file of a run, oven-sh/bun#43787).
setDefaultTimeout(60_000);

/** dist/umbel driving test/fixtures/fake-gemini.sh through spawn, every turn ending, kill and -p. */

const sha12 = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 12);
const json = (text: string) =>
  JSON.parse(text) as Record<string, unknown> & { evidence: Record<string, unknown> };

let sb: Sandbox;
let userGemini: string;
const CREDS = '{"refresh_token":"unused"}\n';
beforeAll(async () => {
  sb = await createSandbox({ env: { GEMINI_API_KEY: "fake-key" } });
  userGemini = join(sb.dir, "home", ".gemini");
  mkdirSync(userGemini, { mode: 0o700 });
  writeFileSync(join(userGemini, "oauth_creds.json"), CREDS, { mode: 0o600 });
});
afterAll(async () => {
  await sb.dispose();
});

const spawn = (name: string, ...flags: string[]) => spawnOk(sb, name, ["--provider", "gemini", ...flags]);
const turn = (name: string, prompt: string, waitFlags: string[] = []) =>
  sendAndWait(sb, name, prompt, waitFlags);

describe("a gemini worker's life", () => {
  test("spawn → send → wait (stop) → read, in a umbel-owned GEMINI_CLI_HOME", async () => {
    expect(await spawn("gm")).toMatchObject({ name: "gm", provider: "gemini", state: "ready" });
    const home = join(sb.root, "sessions", "gm", "gemini", ".gemini");
    expect(lstatSync(join(home, "settings.json")).mode & 0o777).toBe(0o600);
    expect(lstatSync(join(home, "oauth_creds.json")).isSymbolicLink()).toBe(true);
    expect(readdirSync(userGemini)).toEqual(["oauth_creds.json"]);
    expect(existsSync(join(sb.work, ".gemini"))).toBe(false);

    const prompt = "what is 2+2? !really";
    const { outcome, code } = await turn("gm", prompt);
    expect(outcome).toMatchObject({ reason: "stop" });
    expect(code).toBe(0);
    const read = await sb.umbel(["read", "gm"]);
    expect(read.stdout).toBe(`FAKE-REPLY len=${prompt.length} sha=${sha12(prompt)} head=${prompt}\n`);
  });

  test("an API error is provider-error (122) with the transcript's error", async () => {
    const { outcome, code } = await turn("gm", "fake:error 500", ["--timeout", "20s"]);
    expect(outcome.reason).toBe("provider-error");
    expect(String(outcome.evidence.message)).toContain("API Error");
    expect(code).toBe(122);
    const read = await sb.umbel(["read", "gm", "--json"]);
    expect(json(read.stdout)).toMatchObject({ isError: true });
  });

  // Issue 13: a usage limit is its own outcome, limited (120), no longer a provider-error (122).
  test("the quota box (Keep trying / Stop, no hook): umbel chooses Stop → limited (daily), worker usable", async () => {
    const { outcome, code } = await turn("gm", "fake:quota", ["--timeout", "20s"]);
    expect(outcome.reason).toBe("limited");
    expect(String(outcome.evidence.message)).toContain("exhausted your daily quota");
    expect(outcome.evidence.limit).toMatchObject({ window: "daily", resetsAt: null });
    expect(code).toBe(120);
    expect((await turn("gm", "fake:reply still here")).outcome.reason).toBe("stop");
    expect((await sb.umbel(["read", "gm"])).stdout).toBe("still here\n");
  });

  test("retries that never end: provider-error by umbel's stall deadline, worker usable", async () => {
    await spawn("retry", "--env", "FAKE_GEMINI_RETRY_MS=200");
    const sent = await sb.umbel(["send", "retry", "fake:retry", "--json"]);
    const { baseline } = json(sent.stdout);
    const waited = await sb.umbel(
      ["wait", "retry", "--after", String(baseline), "--json", "--timeout", "30s"],
      {
        env: { UMBEL_RETRY_STALL_MS: "1500" },
      },
    );
    const outcome = json(waited.stdout);
    expect(outcome.reason).toBe("provider-error");
    expect(String(outcome.evidence.error)).toContain("retried the model request");
    expect(waited.code).toBe(122);
    expect((await turn("retry", "fake:reply recovered")).outcome.reason).toBe("stop");
    expect((await sb.umbel(["kill", "retry", "--purge"])).code).toBe(0);
  });

  test("a tool permission is input (126); approving it ends the turn in stop", async () => {
    const asked = await turn("gm", "fake:permission", ["--timeout", "20s"]);
    expect(asked.outcome.reason).toBe("input");
    expect(String(asked.outcome.evidence.prompt)).toContain("touch fake-approved.txt");
    expect(asked.code).toBe(126);
    expect((await sb.umbel(["keys", "gm", "1"])).code).toBe(0);
    const done = await sb.umbel(["wait", "gm", "--json", "--timeout", "20s"]);
    expect(json(done.stdout).reason).toBe("stop");
    expect(existsSync(join(sb.work, "fake-approved.txt"))).toBe(true);
  });

  test("a cancelled turn (Escape) is a stop with detail cancelled", async () => {
    const sent = await sb.umbel(["send", "gm", "fake:hang", "--json"]);
    const { baseline } = json(sent.stdout);
    await eventually(async () => (await sb.umbel(["capture", "gm"])).stdout.includes("esc to cancel"));
    await sb.umbel(["keys", "gm", "Escape"]);
    const waited = await sb.umbel(["wait", "gm", "--after", String(baseline), "--json", "--timeout", "20s"]);
    expect(json(waited.stdout)).toMatchObject({
      reason: "stop",
      evidence: { interrupted: true, detail: "cancelled" },
    });
  });

  test("kill drops the credential links (never the user's file); dead (125); prune", async () => {
    expect((await sb.umbel(["kill", "gm"])).code).toBe(0);
    expect(existsSync(join(sb.root, "sessions", "gm", "gemini", ".gemini", "oauth_creds.json"))).toBe(false);
    expect(readFileSync(join(userGemini, "oauth_creds.json"), "utf8")).toBe(CREDS);
    await spawn("dies");
    const died = await turn("dies", "fake:die 3", ["--timeout", "20s"]);
    expect(died.outcome.reason).toBe("dead");
    expect(died.code).toBe(125);
    expect((await sb.umbel(["prune", "--json"])).stdout).toContain("dies");
    expect(existsSync(join(sb.root, "sessions", "gm"))).toBe(false);
    expect(readFileSync(join(userGemini, "oauth_creds.json"), "utf8")).toBe(CREDS);
  });

  test("a permission mode gemini lacks, a claude-only flag or an MCP server it cannot run: usage error naming gemini", async () => {
    mkdirSync(join(sb.dir, "a,b"), { recursive: true }); // exists, but gemini splits the flag at commas
    for (const flags of [
      ["--permission-mode", "dontAsk"],
      ["--settings", "{}"],
      ["--continue-session"],
      ["--mcp-config", JSON.stringify({ mcpServers: { ide: { type: "ws", url: "ws://127.0.0.1:1" } } })],
      ["--add-dir", join(sb.dir, "a,b")],
    ]) {
      const r = await sb.umbel(["spawn", "nope", "--provider", "gemini", ...flags]);
      expect(r.stderr).toContain("gemini");
      expect(r.code).toBe(2);
    }
    expect(existsSync(join(sb.root, "sessions", "nope"))).toBe(false);
  });

  test("claude's launch flags reach gemini: system prompt, append, --add-dir, MCP servers, excluded tools", async () => {
    const extra = join(sb.dir, "extra");
    mkdirSync(extra);
    writeFileSync(join(userGemini, "GEMINI.md"), "# the user's memory\n");
    const mcp = JSON.stringify({ mcpServers: { tools: { command: "umbel", args: ["mcp"] } } });
    try {
      const r = await sb.umbel([
        "-p",
        "fake:config",
        "--provider",
        "gemini",
        "--system-prompt",
        "SYSTEM TEXT",
        "--append-system-prompt",
        "APPENDED, see @notes.md",
        "--add-dir",
        extra,
        "--mcp-config",
        mcp,
        "--disallowed-tools",
        "run_shell_command",
        "web_fetch",
      ]);
      const sha = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 12);
      // GEMINI.md: the user's text, then the append (its `@notes.md` kept from gemini's import).
      const memory = "# the user's memory\n\nAPPENDED, see \u2060@notes.md\n";
      // -p's worker also leaves out what gemini -p would not offer (docs/cli-reference.md, "Permissions").
      const left =
        "replace,write_file,list_background_processes,read_background_output,ask_user,write_todos,activate_skill";
      expect(r.stdout).toBe(
        `CONFIG system=${sha("SYSTEM TEXT")} memory=${sha(memory)} dirs=${extra} mcp=tools exclude=run_shell_command,web_fetch,${left}\n`,
      );
      // The --add-dir trust box, answered for this session only, and said so (-p as spawn).
      expect(r.stderr).toMatch(
        new RegExp(
          `^umbel: p-[0-9a-f]{8}: answered gemini's include-trust dialog for ${extra}: "Yes" \\(not kept past this worker\\)\n$`,
        ),
      );
      expect(r.code).toBe(0);
    } finally {
      rmSync(join(userGemini, "GEMINI.md"));
    }
    const spawned = await spawn("dirs", "--add-dir", extra);
    expect(spawned.dialogsAnswered).toEqual(["include-trust"]);
    expect(spawned.dialogs).toEqual([
      { dialog: "include-trust", answer: "Yes", folders: [extra], lasting: false },
    ]);
    expect((await turn("dirs", "fake:config")).outcome.reason).toBe("stop");
    expect((await sb.umbel(["read", "dirs"])).stdout).toBe(
      `CONFIG system=unset memory=none dirs=${extra} mcp=none exclude=none\n`,
    );
    expect((await sb.umbel(["kill", "dirs", "--purge"])).code).toBe(0);
  });

  test("umbel -p --provider gemini prints the answer", async () => {
    const r = await sb.umbel(["-p", "--provider", "gemini", "fake:reply from gemini"]);
    expect(r.stdout).toBe("from gemini\n");
    expect(r.code).toBe(0);
    const j = await sb.umbel(["-p", "--provider", "gemini", "--output-format", "json", "fake:reply json"]);
    expect(JSON.parse(j.stdout)).toMatchObject({ type: "result", is_error: false, result: "json" });
    expect(JSON.parse(j.stdout).umbel).not.toHaveProperty("dialogs");
  });

  test("umbel -p lists the dialogs its new worker answered in the JSON result (umbel.dialogs)", async () => {
    const extra = join(sb.dir, "extra-json");
    mkdirSync(extra);
    const args = [
      "-p",
      "--provider",
      "gemini",
      "--add-dir",
      extra,
      "--output-format",
      "json",
      "fake:reply ok",
    ];
    const r = await sb.umbel(args);
    expect(JSON.parse(r.stdout).umbel.dialogs).toEqual([
      { dialog: "include-trust", answer: "Yes", folders: [extra], lasting: false },
    ]);
    expect(r.stderr).toContain(`answered gemini's include-trust dialog for ${extra}`);
    expect(r.code).toBe(0);
  });
});
