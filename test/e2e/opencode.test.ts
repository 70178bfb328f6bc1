import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, lstatSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sendAndWait, spawnOk } from "../helpers/cli.ts";
import { createSandbox, eventually, type Sandbox } from "../helpers/sandbox.ts";

// bun's 5 s default is too short on 2 loaded cores; a preload's default reaches only the first
// file of a run (bun 1.4.5), so each file declares its own (test/unit/structure.test.ts).
setDefaultTimeout(60_000);

/** dist/umbel driving test/fixtures/fake-opencode.sh through spawn, every turn ending, kill and -p. */

// A spawn and five turns take more than bun's 5 s default on 2 loaded cores (declared here: a
// preload's setDefaultTimeout reaches only the first file of a run, oven-sh/bun#43787).
setDefaultTimeout(60_000);

const sha12 = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 12);
const json = (text: string) =>
  JSON.parse(text) as Record<string, unknown> & { evidence: Record<string, unknown> };

let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox();
});
afterAll(async () => {
  await sb.dispose();
});

const spawn = (name: string, ...flags: string[]) => spawnOk(sb, name, ["--provider", "opencode", ...flags]);
const turn = (name: string, prompt: string, waitFlags: string[] = []) =>
  sendAndWait(sb, name, prompt, waitFlags);
const configOf = (name: string) => join(realpathSync(sb.root), "sessions", name, "opencode", "opencode.json");

describe("an opencode worker's life", () => {
  test("spawn → send → wait (stop) → read; its config file lives in the session dir, the plugin in bin/", async () => {
    expect(await spawn("oc")).toMatchObject({ name: "oc", provider: "opencode", state: "ready" });
    const config = JSON.parse(readFileSync(configOf("oc"), "utf8"));
    expect(lstatSync(configOf("oc")).mode & 0o777).toBe(0o600);
    expect(config.plugin).toHaveLength(1);
    expect(config.plugin[0]).toMatch(/\/bin\/opencode-plugin-[0-9a-f]{12}\.js$/);
    expect(readFileSync(config.plugin[0], "utf8")).toContain("UMBEL_OPENCODE_EVENTS");
    expect(config.experimental).toEqual({ disable_paste_summary: true });
    expect(existsSync(join(sb.work, ".opencode"))).toBe(false);
    expect(existsSync(join(sb.dir, "home", ".config", "opencode"))).toBe(false);

    const { outcome, code } = await turn("oc", "hello there");
    expect(outcome).toMatchObject({
      reason: "stop",
      evidence: { message: expect.stringContaining("FAKE-REPLY") },
    });
    expect(code).toBe(0);
    const read = await sb.umbel(["read", "oc"]);
    expect(read.stdout).toBe(`FAKE-REPLY len=11 sha=${sha12("hello there")} head=hello there\n`);
    const info = json((await sb.umbel(["read", "oc", "--json"])).stdout);
    expect(String(info.sessionId)).toStartWith("ses_");
    expect(String(info.transcriptPath)).toEndWith("/home/.local/share/opencode/opencode.db");
  });

  test("a multi-line prompt arrives whole (no paste summary); a leading `/` and `exit` are text", async () => {
    const multi = "first line\n  second, indented\n\nthird\tend ";
    await turn("oc", multi);
    expect((await sb.umbel(["read", "oc"])).stdout).toContain(`sha=${sha12(multi)}`);
    const slash = await turn("oc", "/review is a path");
    expect(slash.outcome.reason).toBe("stop");
    expect((await sb.umbel(["read", "oc"])).stdout).toContain("head= /review is a path");
    expect((await turn("oc", "exit")).outcome.reason).toBe("stop");
    expect((await sb.umbel(["status", "oc", "--json"])).stdout).toContain('"state":"idle"');
  });

  test("an API error is provider-error (122) with the error", async () => {
    const { outcome, code } = await turn("oc", "fake:error 401", ["--timeout", "20s"]);
    expect(outcome).toMatchObject({
      reason: "provider-error",
      evidence: { error: "APIError", message: "fake error 401" },
    });
    expect(code).toBe(122);
    expect((await sb.umbel(["read", "oc"])).stdout).toBe("fake error 401\n");
  });

  test("a permission box is input (126) with its permission and patterns; Enter allows it and the turn stops", async () => {
    const asked = await turn("oc", "fake:permission /tmp/far-away", ["--timeout", "20s"]);
    expect(asked.outcome).toMatchObject({
      reason: "input",
      evidence: { prompt: "external_directory: /tmp/far-away (/tmp/far-away/*)", detail: "permission" },
    });
    expect(String(asked.outcome.evidence.screen)).toContain("Permission required");
    expect(asked.code).toBe(126);
    expect(json((await sb.umbel(["status", "oc", "--json"])).stdout).state).toBe("needs-input");
    expect((await sb.umbel(["keys", "oc", "Enter"])).code).toBe(0);
    const done = await sb.umbel([
      "wait",
      "oc",
      "--after",
      String(asked.baseline),
      "--json",
      "--timeout",
      "20s",
    ]);
    expect(json(done.stdout).reason).toBe("stop");
    expect((await sb.umbel(["read", "oc"])).stdout).toBe("FAKE-APPROVED\n");
  });

  test("rejecting the permission (Right Right Enter) ends the turn with no answer", async () => {
    const asked = await turn("oc", "fake:permission", ["--timeout", "20s"]);
    expect(asked.outcome.reason).toBe("input");
    await sb.umbel(["keys", "oc", "Right", "Right", "Enter"]);
    const done = json(
      (await sb.umbel(["wait", "oc", "--after", String(asked.baseline), "--json", "--timeout", "20s"]))
        .stdout,
    );
    expect(done).toMatchObject({ reason: "stop", evidence: { message: null } });
  });

  test("a question is input with its options; Down Enter answers it", async () => {
    const asked = await turn("oc", "fake:question", ["--timeout", "20s"]);
    expect(asked.outcome).toMatchObject({
      reason: "input",
      evidence: { prompt: "Which color? [Red | Blue]", detail: "question" },
    });
    await sb.umbel(["keys", "oc", "Down", "Enter"]);
    await sb.umbel(["wait", "oc", "--after", String(asked.baseline), "--timeout", "20s"]);
    expect((await sb.umbel(["read", "oc"])).stdout).toBe("FAKE-ANSWERED Blue\n");
  });

  test("Escape twice interrupts: a stop marked interrupted", async () => {
    const sent = await sb.umbel(["send", "oc", "fake:hang", "--json"]);
    const { baseline } = json(sent.stdout);
    await eventually(async () => (await sb.umbel(["capture", "oc"])).stdout.includes("esc interrupt"));
    await sb.umbel(["keys", "oc", "Escape"]);
    await eventually(async () =>
      (await sb.umbel(["capture", "oc"])).stdout.includes("esc again to interrupt"),
    );
    await sb.umbel(["keys", "oc", "Escape"]);
    const waited = await sb.umbel(["wait", "oc", "--after", String(baseline), "--json", "--timeout", "20s"]);
    expect(json(waited.stdout)).toMatchObject({ reason: "stop", evidence: { interrupted: true } });
  });

  test("tools see neither the events log nor umbel's npm offline switch; a provider key is explicit only", async () => {
    const env = { OPENAI_API_KEY: "sk-host", npm_config_offline: "true" };
    expect(
      (await sb.umbel(["spawn", "envs", "--provider", "opencode", "--env", "MINE=1"], { env })).code,
    ).toBe(0);
    for (const name of ["UMBEL_OPENCODE_EVENTS", "npm_config_offline", "OPENAI_API_KEY"]) {
      await turn("envs", `fake:env ${name}`);
      expect((await sb.umbel(["read", "envs"])).stdout).toBe(`ENV ${name} unset\n`);
    }
    await turn("envs", "fake:env MINE");
    expect((await sb.umbel(["read", "envs"])).stdout).toBe("ENV MINE=1\n");
    await sb.umbel(["kill", "envs", "--purge"]);
  });

  test("kill keeps the tombstone; a worker whose CLI dies is dead (125) and pruned", async () => {
    expect((await sb.umbel(["kill", "oc"])).code).toBe(0);
    await spawn("dies");
    const died = await turn("dies", "fake:die 3", ["--timeout", "20s"]);
    expect(died.outcome).toMatchObject({ reason: "dead", evidence: { exit: { exitCode: 3 } } });
    expect(died.code).toBe(125);
    const pruned = await sb.umbel(["prune", "--json"]);
    expect(pruned.stdout).toContain("dies");
  });

  test("--add-dir, --settings, an unknown permission mode, an MCP server with oauth: usage errors naming opencode; nothing is made", async () => {
    for (const flags of [
      ["--add-dir", sb.work],
      ["--settings", "{}"],
      ["--permission-mode", "dontAsk"],
      ["--mcp-config", '{"mcpServers":{"x":{"command":"a","oauth":{}}}}'],
    ]) {
      const r = await sb.umbel(["spawn", "nope", "--provider", "opencode", ...flags]);
      expect(r.stderr).toContain("opencode");
      expect(r.code).toBe(2);
      const p = await sb.umbel(["-p", "--provider", "opencode", "hi", ...flags]);
      expect(p.stdout).toBe("");
      expect(p.stderr).toContain("opencode");
      expect(p.code).toBe(2);
    }
    expect(existsSync(join(sb.root, "sessions", "nope"))).toBe(false);
  });

  test("-p --model --system-prompt --append-system-prompt --mcp-config --allowed-tools reach opencode's config, argv and env", async () => {
    const mcp = join(sb.dir, "mcp.json");
    writeFileSync(
      mcp,
      JSON.stringify({ mcpServers: { umbel: { command: "/usr/bin/umbel", args: ["mcp"] } } }),
    );
    const system = 'SYSTEM "quoted"\nsecond line ✓';
    const appended = "APPENDED\ttext 🎉";
    const r = await sb.umbel([
      "-p",
      "--provider",
      "opencode",
      "fake:config",
      "--model",
      "fake/other-model",
      "--system-prompt",
      system,
      "--append-system-prompt",
      appended,
      "--mcp-config",
      mcp,
      "--allowed-tools",
      "Bash(git diff:*)",
    ]);
    expect(r.stdout).toBe(
      `CONFIG model=fake/other-model agent=build system=${sha12(JSON.stringify(system).slice(1, -1))} instructions=${sha12(appended)} mcp=umbel permission={"bash":{"git diff *":"allow"},"question":"deny"}\n`,
    );
    expect(r.code).toBe(0);
    const plan = await sb.umbel(["-p", "--provider", "opencode", "fake:config", "--permission-mode", "plan"]);
    expect(plan.stdout).toContain("agent=plan");
    const yolo = await sb.umbel([
      "-p",
      "--provider",
      "opencode",
      "fake:config",
      "--dangerously-skip-permissions",
    ]);
    expect(yolo.stdout).toContain('permission={"*":"allow","question":"deny"}');
  });

  test("-p never asks a person: a permission ask is rejected by umbel's plugin and the model goes on", async () => {
    const r = await sb.umbel([
      "-p",
      "--provider",
      "opencode",
      "--output-format",
      "json",
      "fake:permission /tmp/fake-far",
    ]);
    expect(json(r.stdout)).toMatchObject({
      subtype: "success",
      result: "FAKE-DENIED",
      permission_denials: [{ tool_name: "write" }],
      umbel: { outcome: "stop", exitCode: 0 },
    });
    expect(r.code).toBe(0);
  });

  test("-c continues the newest opencode session of its directory; none there: a new one", async () => {
    const here = join(sb.dir, "here");
    const empty = join(sb.dir, "empty");
    for (const dir of [here, empty]) mkdirSync(dir);
    const p = (dir: string, ...args: string[]) =>
      sb.umbel(["-p", "--provider", "opencode", "--cwd", dir, ...args]);
    expect((await p(here, "fake:reply first here")).code).toBe(0);
    const continued = await p(here, "-c", "fake:history");
    expect(continued.stdout).toBe(`HISTORY n=1 last=${sha12("fake:reply first here")}\n`);
    const fresh = await p(empty, "--continue", "fake:history");
    expect(fresh.stdout).toBe("HISTORY n=0 last=none\n");
  });

  test("umbel -p --provider opencode: text, json, and --resume of its session id", async () => {
    const r = await sb.umbel(["-p", "--provider", "opencode", "fake:reply from opencode"]);
    expect(r.stdout).toBe("from opencode\n");
    expect(r.code).toBe(0);
    const j = json(
      (await sb.umbel(["-p", "--provider", "opencode", "--output-format", "json", "fake:reply as json"]))
        .stdout,
    );
    expect(j).toMatchObject({ type: "result", is_error: false, result: "as json", num_turns: 1 });
    const session = String(j.session_id);
    expect(session).toStartWith("ses_");
    const resumed = await sb.umbel(["-p", "--provider", "opencode", "--resume", session, "fake:history"]);
    expect(resumed.stdout).toBe(`HISTORY n=1 last=${sha12("fake:reply as json")}\n`);
    expect(resumed.code).toBe(0);
  });

  test("-p on a pane that lags the events (the home screen stays up 3 s into an 8 s turn) prints the answer", async () => {
    // The real pane lags the plugin on loaded cores: wait once read such a first turn as an
    // interrupted stop after 2 s, and -p printed nothing with exit 0.
    const lag = ["--env", "FAKE_OPENCODE_DRAW_LAG_MS=3000"];
    const r = await sb.umbel(["-p", "--provider", "opencode", ...lag, "fake:slow 8000"]);
    expect(r.stdout).toStartWith("FAKE-REPLY ");
    expect(r.code).toBe(0);
  });
});
