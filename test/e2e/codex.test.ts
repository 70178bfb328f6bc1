import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, lstatSync, mkdirSync, readdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sendAndWait, spawnOk } from "../helpers/cli.ts";
import { createSandbox, eventually, type Sandbox } from "../helpers/sandbox.ts";

// Workers on real tmux take seconds a test; bun's default is 5 s (declared here: a preload's
// setDefaultTimeout reaches only the first file of a run, oven-sh/bun#43787).
setDefaultTimeout(60_000);

/** dist/umbel driving test/fixtures/fake-codex.sh through spawn, every turn ending, kill and -p. */

const sha12 = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 12);
const json = (text: string) =>
  JSON.parse(text) as Record<string, unknown> & { evidence: Record<string, unknown> };

let sb: Sandbox;
let userCodex: string;
beforeAll(async () => {
  sb = await createSandbox();
  userCodex = join(sb.dir, "home", ".codex");
});
afterAll(async () => {
  await sb.dispose();
});

const spawn = (name: string, ...flags: string[]) => spawnOk(sb, name, ["--provider", "codex", ...flags]);
const turn = (name: string, prompt: string, waitFlags: string[] = []) =>
  sendAndWait(sb, name, prompt, waitFlags);

describe("a codex worker's life", () => {
  test("spawn → send → wait (stop) → read; its profile lives in umbel's CODEX_HOME", async () => {
    expect(await spawn("cx")).toMatchObject({ name: "cx", provider: "codex", state: "ready" });
    const home = join(realpathSync(sb.root), "codex-home");
    const profile = join(home, "umbel-cx.config.toml");
    expect(lstatSync(profile).mode & 0o777).toBe(0o600);
    expect(lstatSync(home).mode & 0o777).toBe(0o700);
    expect(existsSync(userCodex)).toBe(false);
    expect(existsSync(join(sb.work, ".codex"))).toBe(false);

    const { outcome, code } = await turn("cx", "hello there");
    expect(outcome).toMatchObject({ reason: "stop" });
    expect(code).toBe(0);
    const read = await sb.umbel(["read", "cx"]);
    expect(read.stdout).toBe(`FAKE-REPLY len=11 sha=${sha12("hello there")} head=hello there\n`);
    // A leading `/` is text, not a command.
    const slash = await turn("cx", "/quit is a path");
    expect(slash.outcome.reason).toBe("stop");
    expect((await sb.umbel(["read", "cx"])).stdout).toContain("head=/quit is a path");
  });

  test("a failed turn fires no hook: provider-error (122) with the transcript's message", async () => {
    const { outcome, code } = await turn("cx", "fake:error 401", ["--timeout", "20s"]);
    expect(outcome.reason).toBe("provider-error");
    expect(String(outcome.evidence.message)).toContain("401 Unauthorized");
    expect(code).toBe(122);
  });

  test("a permission request is input (126); approving it ends the turn in stop", async () => {
    const asked = await turn("cx", "fake:permission", ["--timeout", "20s"]);
    expect(asked.outcome.reason).toBe("input");
    expect(String(asked.outcome.evidence.prompt)).toContain("touch fake-approved.txt");
    expect(asked.code).toBe(126);
    expect((await sb.umbel(["keys", "cx", "y"])).code).toBe(0);
    const done = await sb.umbel(["wait", "cx", "--json", "--timeout", "20s"]);
    expect(json(done.stdout).reason).toBe("stop");
    expect((await sb.umbel(["read", "cx"])).stdout).toContain("FAKE-APPROVED");
  });

  test("an interrupted turn is a stop marked interrupted", async () => {
    const sent = await sb.umbel(["send", "cx", "fake:hang", "--json"]);
    const { baseline } = json(sent.stdout);
    await eventually(async () => (await sb.umbel(["capture", "cx"])).stdout.includes("esc to interrupt"));
    await sb.umbel(["keys", "cx", "Escape"]);
    const waited = await sb.umbel(["wait", "cx", "--after", String(baseline), "--json", "--timeout", "20s"]);
    expect(json(waited.stdout)).toMatchObject({ reason: "stop", evidence: { interrupted: true } });
  });

  test("kill removes the worker's profile; a dead worker is dead (125) and pruned", async () => {
    const profile = join(realpathSync(sb.root), "codex-home", "umbel-cx.config.toml");
    expect((await sb.umbel(["kill", "cx"])).code).toBe(0);
    expect(existsSync(profile)).toBe(false);
    await spawn("dies");
    const died = await turn("dies", "fake:die 3", ["--timeout", "20s"]);
    expect(died.outcome.reason).toBe("dead");
    expect(died.code).toBe(125);
    const pruned = await sb.umbel(["prune", "--json"]);
    expect(pruned.stdout).toContain("dies");
  });

  test("--allowed-tools, manual mode, --settings, --disallowed-tools, an SSE MCP server are usage errors naming codex; nothing is made", async () => {
    for (const flags of [
      ["--allowed-tools", "Bash"],
      ["--permission-mode", "manual"],
      ["--settings", "{}"],
      ["--disallowed-tools", "Bash"],
      ["--mcp-config", '{"mcpServers":{"events":{"type":"sse","url":"http://127.0.0.1:9/sse"}}}'],
    ]) {
      const r = await sb.umbel(["spawn", "nope", "--provider", "codex", ...flags]);
      expect(r.stderr).toContain("codex");
      expect(r.code).toBe(2);
      const p = await sb.umbel(["-p", "--provider", "codex", "hi", ...flags]);
      expect(p.stdout).toBe("");
      expect(p.stderr).toContain("codex");
      expect(p.code).toBe(2);
    }
    expect(existsSync(join(sb.root, "sessions", "nope"))).toBe(false);
  });

  test("-p --system-prompt --append-system-prompt --add-dir --mcp-config reach codex's config and argv", async () => {
    const extra = join(sb.dir, "extra dir");
    mkdirSync(extra);
    mkdirSync(join(sb.work, "rel"));
    const mcp = join(sb.dir, "mcp.json");
    const servers = {
      umbel: { command: "/usr/bin/umbel", args: ["mcp"] },
      "web api": { type: "http", url: "http://127.0.0.1:9/mcp", headers: { "X-K": "v" } },
    };
    writeFileSync(mcp, JSON.stringify({ mcpServers: servers }));
    const system = 'SYSTEM "quoted" \\ back\nsecond line ünïcødé ✓';
    const appended = 'APPENDED\tTAB "q" 🎉\nand more';
    const keys = "instructions developer_instructions mcp_servers add_dirs";
    const r = await sb.umbel([
      "-p",
      "--provider",
      "codex",
      `fake:config ${keys}`,
      "--system-prompt",
      system,
      "--append-system-prompt",
      appended,
      "--mcp-config",
      mcp,
      "--add-dir",
      extra,
      "rel",
      // codex's TUI takes no --add-dir in the read-only sandbox -p runs it in by default
      "--permission-mode",
      "default",
    ]);
    expect(r.stdout).toBe(
      [
        `instructions=${system}`,
        `developer_instructions=${appended}`,
        "mcp_servers=umbel=/usr/bin/umbel, web_api=http://127.0.0.1:9/mcp",
        `add_dirs=${extra}, ${join(sb.work, "rel")}`,
        "",
      ].join("\n"),
    );
    expect(r.code).toBe(0);
    // The anonymous worker is purged: its profile and instructions file go with it.
    const home = readdirSync(join(realpathSync(sb.root), "codex-home"));
    expect(home.filter((name) => name.startsWith("umbel-p-"))).toEqual([]);
    const readOnly = await sb.umbel(["-p", "--provider", "codex", "x", "--add-dir", extra]);
    expect(readOnly.stderr).toContain("codex's TUI refuses --add-dir in its read-only sandbox");
    expect(readOnly.code).toBe(2);
  });

  test("-c continues the newest codex conversation of its directory; none there: a new one", async () => {
    const here = join(sb.dir, "here");
    const there = join(sb.dir, "there");
    const empty = join(sb.dir, "empty");
    for (const dir of [here, there, empty]) mkdirSync(dir);
    const p = (dir: string, ...args: string[]) =>
      sb.umbel(["-p", "--provider", "codex", "--cwd", dir, ...args]);
    expect((await p(here, "fake:reply first here")).code).toBe(0);
    expect((await p(there, "fake:reply newer, elsewhere")).code).toBe(0);
    const continued = await p(here, "-c", "fake:history");
    const history = `HISTORY n=1 last=${sha12("fake:reply first here")}\n`;
    // A failure shows the run's exit and stderr (once in CI: empty stdout, cause unseen).
    if (continued.stdout !== history) console.error(`-c exit ${continued.code}:\n${continued.stderr}`);
    expect(continued.stdout).toBe(history);
    expect(continued.code).toBe(0);
    const fresh = await p(empty, "--continue", "fake:history");
    expect(fresh.stdout).toBe("HISTORY n=0 last=none\n");
    expect(fresh.code).toBe(0);
  });

  test("--resume of a thread a killed worker's codex still holds: r until it exits, then the turn goes on", async () => {
    // run --resume met it on a loaded CI: kill returns once tmux ended the session, while that
    // worker's codex may still be exiting with the thread's lock (here: for 4 s after its hang-up).
    const held = await sb.umbel([
      "-p",
      "--provider",
      "codex",
      "--name",
      "holder",
      "--env",
      "FAKE_CODEX_EXIT_LAG_MS=4000",
      "--output-format",
      "json",
      "fake:reply held",
    ]);
    expect(held.code).toBe(0);
    const session = String(JSON.parse(held.stdout).session_id);
    expect((await sb.umbel(["kill", "--purge", "holder"])).code).toBe(0);
    const r = await sb.umbel(["-p", "--provider", "codex", "--resume", session, "fake:history"]);
    if (r.code !== 0) console.error(r.stderr);
    expect(r.stdout).toBe(`HISTORY n=1 last=${sha12("fake:reply held")}\n`);
    expect(r.code).toBe(0);
  });

  test("umbel -p --provider codex prints the answer", async () => {
    const r = await sb.umbel(["-p", "--provider", "codex", "fake:reply from codex"]);
    expect(r.stdout).toBe("from codex\n");
    expect(r.code).toBe(0);
    const j = await sb.umbel(["-p", "--provider", "codex", "--output-format", "json", "fake:reply as json"]);
    expect(JSON.parse(j.stdout)).toMatchObject({ type: "result", is_error: false, result: "as json" });
  });
});
