// The REAL Claude Code TUI (2.1.332, `npm run setup:real`) as a worker on another host (issue 25
// §3): a real OpenSSH server on loopback (test/helpers/sshd.ts) in front of a "remote" umbel with
// its own HOME, state root and tmux server, whose claude is set up as the rest of the tier's (a
// seeded config with the work folder trusted, the stub model's URL, no retries). The stub runs in
// this process on 127.0.0.1, so the remote worker reaches it as a local one would. The API key and
// a canary exist only in the LOCAL environment: they reach the remote claude by `--env NAME` alone,
// in the envelope on ssh's stdin. test/e2e/hosts.test.ts covers the rest of hosts with the fake.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { errorOf, type ToolResult } from "../helpers/mcp-client.ts";
import { filesHolding, sampleArgv } from "../helpers/proc.ts";
import { UMBEL } from "../helpers/sandbox.ts";
import { createHostPair, type HostPair, hasSshd, writeRemoteUmbel } from "../helpers/sshd.ts";
import { renderPromptEcho } from "../stub-model/digest.ts";
import { type StubModel, startStubModel } from "../stub-model/stub-model.ts";
import { type ClaudeHome, seedClaudeHome } from "./claude-home.ts";
import { removeSettled } from "./providers/claude.ts";
import { requireRealClaude } from "./real-bin.ts";
import { json, timing } from "./scenarios/drive.ts";

// Real workers behind ssh take seconds; bun's default is 5 s, and a preload's setDefaultTimeout
// reaches only the first file of a run (oven-sh/bun#43787).
setDefaultTimeout(60_000);

const claude = requireRealClaude("test/real/hosts-claude.test.ts");

/** claude approves a key by its last 20 characters (claude-home.ts): the canary is all before them. */
const KEY_CANARY = `key-canary-${crypto.randomUUID()}`;
const API_KEY = `sk-ant-${KEY_CANARY}-0123456789abcdefghij`;
const SECRET = `host-canary-${crypto.randomUUID()}`;
const ENV_FLAGS = ["--env", "ANTHROPIC_API_KEY", "--env", "SECRET_TOKEN"];

describe.skipIf(claude === null)("real claude on a host over ssh", () => {
  let stub: StubModel;
  let pair: HostPair;
  let claudeDir: string;
  let home: ClaudeHome;
  const local = () => pair.local;
  const remote = () => pair.remote;

  beforeAll(async () => {
    if (!hasSshd()) throw new Error("no sshd: apt-get install openssh-server (.ci/run installs it)");
    stub = await startStubModel({ dialect: "anthropic" });
    pair = await createHostPair({ localEnv: { ANTHROPIC_API_KEY: API_KEY, SECRET_TOKEN: SECRET } });
    claudeDir = await mkdtemp(join(tmpdir(), "umbel-real-host-"));
    home = seedClaudeHome(claudeDir, { apiKey: API_KEY, trustedDirs: [pair.remote.work] });
    // The host's claude, as the tier sets one up; no key there: it comes from the caller's side.
    Object.assign(pair.remote.env, {
      HOME: home.home,
      CLAUDE_CONFIG_DIR: home.configDir,
      TMPDIR: home.tmpDir,
      DISABLE_AUTOUPDATER: "1",
      ANTHROPIC_BASE_URL: stub.url,
      CLAUDE_CODE_MAX_RETRIES: "0",
      UMBEL_CLAUDE_BIN: claude ?? "claude",
    });
    await writeRemoteUmbel(pair.remote);
  });

  afterAll(async () => {
    await pair?.dispose();
    await stub?.stop();
    if (claudeDir) await removeSettled(claudeDir);
  });

  /** `umbel ARGS --json` on this side, which must exit 0. */
  async function ok(args: string[], stdin?: string) {
    const r = await local().umbel([...args, "--json"], stdin === undefined ? {} : { stdin });
    if (r.code !== 0) throw new Error(`umbel ${args.join(" ")} → ${r.code}\n${r.stdout}\n${r.stderr}`);
    return json(r.stdout);
  }

  /** The files of both state roots and of the host's claude (its HOME, config dir, TMPDIR). */
  const everyFile = () => [local().root, remote().root, claudeDir];

  test("spawn --host box → send → wait → read → status → kill: the stub's answer; the key and canary by --env only", async () => {
    const prompt = `prompt-canary-${crypto.randomUUID()}`;
    let started = performance.now();
    const { result: baseline, argvs } = await sampleArgv(async () => {
      const spawned = await ok(["spawn", "w", "--host", "box", ...ENV_FLAGS]);
      timing("spawn --host box (real claude)", performance.now() - started);
      expect(spawned).toMatchObject({
        name: "box:w",
        provider: "claude",
        state: "ready",
        cwd: remote().work,
        dialogsAnswered: [],
      });
      started = performance.now();
      const sent = await ok(["send", "box:w"], prompt);
      timing("send box:w", performance.now() - started);
      expect(sent).toMatchObject({ name: "box:w" });
      return sent.baseline as number;
    });
    for (const argv of argvs) {
      expect(argv).not.toContain(SECRET);
      expect(argv).not.toContain(KEY_CANARY);
      expect(argv).not.toContain(prompt);
    }
    expect([...argvs].some((a) => a.includes("remote-umbel spawn --stdin-json --json"))).toBe(true);

    started = performance.now();
    const waited = await ok(["wait", "box:w", "--after", String(baseline), "--timeout", "30s"]);
    timing("wait box:w", performance.now() - started);
    expect(waited).toMatchObject({ name: "box:w", reason: "stop", exitCode: 0 });
    const read = await local().umbel(["read", "box:w"]);
    expect(read.stdout).toBe(`${renderPromptEcho(prompt)}\n`);
    expect(read.code).toBe(0);
    const status = await ok(["status", "box:w"]);
    expect(status).toMatchObject({ name: "box:w", state: "idle", provider: "claude" });

    // The prompt reached the stub exactly, with the key the caller's environment holds.
    const turn = stub.mainRequests().filter((r) => r.prompt === prompt);
    expect(turn).toHaveLength(1);
    expect(turn[0]?.headers["x-api-key"]).toBe(API_KEY);
    // The canary is in the remote claude's environment (status's pid is the host's pane: claude
    // is its child), from the caller's side alone.
    const cli = claudeChild(status.pid as number);
    expect(environOf(cli)).toContain(`SECRET_TOKEN=${SECRET}`);
    expect(environOf(cli)).toContain(`ANTHROPIC_API_KEY=${API_KEY}`);
    expect(environOf(cli)).toContain(`CLAUDE_CONFIG_DIR=${home.configDir}`); // the host's own claude
    // The sampler saw the remote claude's own argv too (it ran from the spawn on).
    expect(argvs).toContain(readFileSync(`/proc/${cli}/cmdline`, "utf8").replaceAll("\0", " "));
    expect(readFileSync(join(remote().dir, "remote-umbel"), "utf8")).not.toContain(SECRET);
    // In no file of either state root, nor of the host's claude (its transcript holds the prompt).
    expect(filesHolding(everyFile(), SECRET)).toEqual([]);
    expect(filesHolding(everyFile(), KEY_CANARY)).toEqual([]);
    expect(filesHolding([local().root], prompt)).toEqual([]);

    const killed = await local().umbel(["kill", "box:w"]);
    expect(killed.stdout).toBe("killed box:w\n");
    expect(killed.code).toBe(0);
    expect(await ok(["status", "box:w"])).toMatchObject({ name: "box:w", state: "killed" });
    expect(filesHolding(everyFile(), SECRET)).toEqual([]);
  });

  test("-p --host box: text and json are the stub's answer, the prompt on no argv but the caller's", async () => {
    const prompt = `p-canary-${crypto.randomUUID()}`;
    const before = (json((await remote().umbel(["ls", "--json"])).stdout) as unknown as unknown[]).length;
    let started = performance.now();
    const { result: plain, argvs } = await sampleArgv(() =>
      local().umbel(["-p", "--host", "box", ...ENV_FLAGS, prompt]),
    );
    timing("-p --host box (text)", performance.now() - started);
    expect(plain.stderr).toBe("");
    expect(plain.stdout).toBe(`${renderPromptEcho(prompt)}\n`);
    expect(plain.code).toBe(0);
    for (const argv of argvs) {
      expect(argv).not.toContain(SECRET);
      if (!argv.startsWith(`${UMBEL} -p --host box`)) expect(argv).not.toContain(prompt);
    }
    expect([...argvs].some((a) => a.includes("remote-umbel -p --stdin-json"))).toBe(true);

    started = performance.now();
    const out = await local().umbel(
      ["-p", "--host", "box", "--env", "ANTHROPIC_API_KEY", "--output-format", "json"],
      {
        stdin: "from stdin",
      },
    );
    timing("-p --host box (json, stdin)", performance.now() - started);
    expect(json(out.stdout)).toMatchObject({
      type: "result",
      subtype: "success",
      is_error: false,
      result: renderPromptEcho("from stdin"),
    });
    expect(out.code).toBe(0);
    // Each -p removed its worker on the host.
    expect(json((await remote().umbel(["ls", "--json"])).stdout) as unknown as unknown[]).toHaveLength(
      before,
    );
    expect(filesHolding(everyFile(), SECRET)).toEqual([]);
  });

  test("over MCP: umbel_spawn {host}, then send, wait, read and kill on box:m", async () => {
    const client = new Client({ name: "umbel-real-hosts", version: "0" });
    await client.connect(
      new StdioClientTransport({ command: UMBEL, args: ["mcp"], env: local().env, cwd: local().work }),
    );
    try {
      await client.listTools(); // the client checks structuredContent against the listed schemas
      const call = async (name: string, args: Record<string, unknown>) =>
        (await client.callTool({ name, arguments: args })) as ToolResult;
      const mcp = async (name: string, args: Record<string, unknown>) => {
        const r = await call(name, args);
        if (r.isError) throw new Error(`${name}: ${r.content.map((c) => c.text).join("\n")}`);
        return r.structuredContent as Record<string, unknown>;
      };
      const env = {
        ANTHROPIC_API_KEY: { fromEnv: "ANTHROPIC_API_KEY" },
        SECRET_TOKEN: { fromEnv: "SECRET_TOKEN" },
      };
      const started = performance.now();
      expect(await mcp("umbel_spawn", { name: "m", host: "box", env })).toMatchObject({
        name: "box:m",
        state: "ready",
        cwd: remote().work,
      });
      timing("umbel_spawn {host: box}", performance.now() - started);
      const { baseline } = await mcp("umbel_send", { name: "box:m", prompt: "over mcp" });
      expect(await mcp("umbel_wait", { name: "box:m", after: baseline, timeout: "30s" })).toMatchObject({
        name: "box:m",
        reason: "stop",
      });
      expect(await mcp("umbel_read", { name: "box:m", after: baseline })).toMatchObject({
        text: renderPromptEcho("over mcp"),
      });
      const { pid } = await mcp("umbel_status", { name: "box:m" });
      expect(environOf(claudeChild(pid as number))).toContain(`SECRET_TOKEN=${SECRET}`);
      expect(await mcp("umbel_kill", { name: "box:m", purge: true })).toMatchObject({
        name: "box:m",
        state: "purged",
      });
      expect(errorOf(await call("umbel_status", { name: "box:m" }))).toMatchObject({
        code: "not-found",
        data: { host: "box" },
      });
    } finally {
      await client.close();
    }
    expect(filesHolding(everyFile(), SECRET)).toEqual([]);
  });
});

/** A pane's claude: the pane runs launch.sh's sh, claude (2.1.332: claude.exe) is its child. */
function claudeChild(panePid: number): number {
  const children = readdirSync("/proc").flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return [];
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // pid (comm) state ppid …: comm may hold spaces and parentheses, so read after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      return ppid === panePid && comm !== "sh" ? [{ pid: Number(entry), comm }] : [];
    } catch {
      return []; // gone meanwhile
    }
  });
  expect(children.map((c) => c.comm)).toEqual(["claude.exe"]);
  return children[0]?.pid ?? 0;
}

const environOf = (pid: number) => readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
