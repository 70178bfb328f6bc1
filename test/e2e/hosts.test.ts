import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { chmod, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Progress } from "@modelcontextprotocol/sdk/types.js";
import { connectUmbelMcp, errorOf, type ToolResult } from "../helpers/mcp-client.ts";
import { filesUnder, sampleArgv, stdinJsonProcesses } from "../helpers/proc.ts";
import { createSandbox, eventually, isRunning, type Sandbox, UMBEL } from "../helpers/sandbox.ts";
import { createHostPair, type HostPair, hasSshd, type Sshd, writeRemoteUmbel } from "../helpers/sshd.ts";

// A real sshd, two umbels and a fake claude on real tmux: seconds a test (bun's default is 5 s).
setDefaultTimeout(60_000);

/**
 * A worker on another host, over a real OpenSSH server on loopback (test/helpers/sshd.ts): the
 * "remote" is dist/umbel with its own HOME, state root and tmux server (a wrapper script exports
 * them: sshd gives a session its own environment), the local one reaches it through
 * UMBEL_SSH_COMMAND="ssh -F <the test's client config>".
 */

const SECRET = `host-canary-${crypto.randomUUID()}`;
const PROMPT = `prompt-canary-${crypto.randomUUID()}`;

let pair: HostPair;
let sshd: Sshd;
let local: Sandbox;
let remote: Sandbox;

beforeAll(async () => {
  if (!hasSshd()) throw new Error("no sshd: apt-get install openssh-server (.ci/run installs it)");
  pair = await createHostPair({ localEnv: { SECRET_TOKEN: SECRET } });
  ({ sshd, local, remote } = pair);
});

afterAll(async () => {
  await pair?.dispose();
});

const parse = (text: string) => JSON.parse(text) as Record<string, unknown>;

/** The remote umbel's `wait --stdin-json` processes, from /proc. */
const remoteWaits = () => stdinJsonProcesses("wait", remote.root);

describe("a worker on a host over ssh", () => {
  test("hosts lists the box: reachable, its round trip, its umbel's version and protocol, its CLIs", async () => {
    const r = await local.umbel(["hosts", "--json"]);
    expect(r.stderr).toBe("");
    const [box] = JSON.parse(r.stdout) as Record<string, unknown>[];
    expect(box).toMatchObject({
      name: "box",
      ssh: "box",
      reachable: true,
      protocol: 1,
      workers: [],
      error: null,
    });
    expect(typeof box?.version).toBe("string");
    expect(box?.rttMs as number).toBeGreaterThanOrEqual(0);
    expect(box?.clis).toContainEqual(expect.objectContaining({ id: "claude", status: "ok" }));
    expect(r.code).toBe(0);
    // The master connection's socket folder: under the state root, 0700.
    expect(statSync(join(local.root, "ssh")).mode & 0o777).toBe(0o700);
  });

  test("spawn --host → send box:w → wait → read → status → kill; secrets never on an argv", async () => {
    const { result, argvs } = await sampleArgv(async () => {
      const spawned = await local.umbel(["spawn", "w", "--host", "box", "--env", "SECRET_TOKEN", "--json"]);
      expect(spawned.stderr).not.toContain("umbel:");
      expect(parse(spawned.stdout)).toMatchObject({ name: "box:w", provider: "claude", cwd: remote.work });
      expect(spawned.code).toBe(0);
      // The prompt on the local umbel's stdin too, so any argv that holds it would be the remote's.
      const sent = await local.umbel(["send", "box:w", "--json"], { stdin: PROMPT });
      expect(parse(sent.stdout)).toMatchObject({ name: "box:w" });
      expect(sent.code).toBe(0);
      return parse(sent.stdout).baseline as number;
    });
    for (const argv of argvs) {
      expect(argv).not.toContain(SECRET);
      expect(argv).not.toContain(PROMPT);
    }
    // The remote umbel ran (its argv: the verb and --stdin-json), and nothing of the input with it.
    expect([...argvs].some((a) => a.includes("remote-umbel send --stdin-json --json"))).toBe(true);

    const waited = await local.umbel(["wait", "box:w", "--after", String(result), "--json"]);
    expect(parse(waited.stdout)).toMatchObject({ name: "box:w", reason: "stop", exitCode: 0 });
    expect(waited.code).toBe(0);
    const read = await local.umbel(["read", "box:w"]);
    // The fake's answer: the prompt's length, hash and head (it arrived byte-exact, over stdin).
    const sha12 = new Bun.CryptoHasher("sha256").update(PROMPT).digest("hex").slice(0, 12);
    expect(read.stdout).toStartWith(`FAKE-REPLY len=${PROMPT.length} sha=${sha12} head=`);
    expect(read.code).toBe(0);
    const status = await local.umbel(["status", "box:w", "--json"]);
    expect(parse(status.stdout)).toMatchObject({ name: "box:w", state: "idle" });
    const hosts = JSON.parse((await local.umbel(["hosts", "--json"])).stdout) as {
      workers: { name: string }[];
    }[];
    expect(hosts[0]?.workers.map((w) => w.name)).toEqual(["w"]);

    // The local umbel keeps no state for a remote worker (only the master's socket folder).
    expect(readdirSync(local.root).sort()).toEqual(["config.toml", "ssh"]);
    expect((await local.umbel(["ls", "--local", "--json"])).stdout).toBe("[]\n");
    // The fleet view holds it, named and marked with its host.
    expect(JSON.parse((await local.umbel(["ls", "--json"])).stdout)).toMatchObject([
      { name: "box:w", host: "box", state: "idle" },
    ]);
    // The env value is in no file of either state root; the prompt in none of this one's (the
    // host's events log holds it, as any worker's does: claude's UserPromptSubmit payload).
    for (const file of [...filesUnder(local.root), ...filesUnder(remote.root)])
      expect({ file, secret: readFileSync(file, "utf8").includes(SECRET) }).toEqual({ file, secret: false });
    for (const file of filesUnder(local.root))
      expect({ file, prompt: readFileSync(file, "utf8").includes(PROMPT) }).toEqual({ file, prompt: false });
    expect(filesUnder(remote.root).filter((f) => readFileSync(f, "utf8").includes(PROMPT))).toEqual([
      join(remote.root, "sessions", "w", "events", "hooks.jsonl"),
    ]);

    const killed = await local.umbel(["kill", "box:w"]);
    expect(killed.stdout).toBe("killed box:w\n");
    expect(killed.code).toBe(0);
    const gone = await local.umbel(["status", "box:w", "--json"]);
    expect(parse(gone.stdout)).toMatchObject({ name: "box:w", state: "killed" });
  });

  test("over MCP: umbel_hosts, umbel_spawn {host}, then send, wait, read, status and kill on box:m", async () => {
    const client = await connectUmbelMcp(local, "umbel-e2e-hosts");
    try {
      const ok = async (name: string, args: Record<string, unknown> = {}) => {
        const r = (await client.callTool({ name, arguments: args })) as ToolResult;
        if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.content)}`);
        return r.structuredContent as Record<string, unknown>;
      };
      const hosts = (await ok("umbel_hosts")).hosts as Record<string, unknown>[];
      expect(hosts[0]).toMatchObject({ name: "box", reachable: true, protocol: 1 });
      expect(
        await ok("umbel_spawn", { name: "m", host: "box", env: { T: { fromEnv: "SECRET_TOKEN" } } }),
      ).toMatchObject({
        name: "box:m",
        cwd: remote.work,
      });
      const fleet = await ok("umbel_ls");
      expect(fleet.hosts).toEqual(["box"]);
      expect(fleet.workers).toContainEqual(expect.objectContaining({ name: "box:m", host: "box" }));
      expect(fleet.unreachable).toBeUndefined();
      const { baseline } = await ok("umbel_send", { name: "box:m", prompt: "over mcp" });
      expect(await ok("umbel_wait", { name: "box:m", after: baseline })).toMatchObject({
        name: "box:m",
        reason: "stop",
      });
      expect((await ok("umbel_read", { name: "box:m" })).text).toStartWith("FAKE-REPLY len=8");
      expect(await ok("umbel_status", { name: "box:m" })).toMatchObject({ name: "box:m", state: "idle" });
      expect(await ok("umbel_kill", { name: "box:m", purge: true })).toMatchObject({
        name: "box:m",
        state: "purged",
      });
      const missing = (await client.callTool({
        name: "umbel_read",
        arguments: { name: "box:m" },
      })) as ToolResult;
      expect(missing.isError).toBe(true);
      expect(errorOf(missing)).toMatchObject({ code: "not-found", exitCode: 3, data: { host: "box" } });
    } finally {
      await client.close();
    }
  });

  test("answer, capture and keys on box:NAME: a permission prompt answered there", async () => {
    expect((await local.umbel(["spawn", "p", "--host", "box"])).code).toBe(0);
    const baseline = (await local.umbel(["send", "box:p", "fake:permission"])).stdout.trim();
    const asked = await local.umbel(["wait", "box:p", "--after", baseline, "--timeout", "20s", "--json"]);
    expect(parse(asked.stdout)).toMatchObject({ name: "box:p", reason: "input" });
    expect(asked.code).toBe(126);
    const screen = await local.umbel(["capture", "box:p"]);
    expect(screen.stdout).toContain("echo hi > x.txt");
    const answered = await local.umbel(["answer", "box:p", "allow", "--json"]);
    expect(parse(answered.stdout)).toMatchObject({ name: "box:p" });
    expect(answered.code).toBe(0);
    const done = await local.umbel(["wait", "box:p", "--after", baseline, "--timeout", "20s", "--json"]);
    expect(parse(done.stdout)).toMatchObject({ name: "box:p", reason: "stop" });
    // logs on box:NAME (test/e2e/hosts-stream.test.ts): the permission request among the host's events.
    const logs = await local.umbel(["logs", "box:p"]);
    expect(logs.stdout).toContain("PermissionRequest");
    expect(logs.code).toBe(0);
    expect((await local.umbel(["keys", "box:p", "Escape"])).code).toBe(0);
    expect((await local.umbel(["kill", "box:p", "--purge"])).stdout).toBe("purged box:p\n");
  });

  test("a remote error keeps its code: no such worker there is exit 3, named with the host", async () => {
    const r = await local.umbel(["read", "box:nobody", "--json"]);
    expect(r.stderr).toStartWith("umbel: box: ");
    expect(parse(r.stdout)).toMatchObject({ error: { code: "not-found", data: { host: "box" } } });
    expect(r.code).toBe(3);
  });

  test("Ctrl-C on a remote wait: exit 130 here, the remote wait ends too, the worker is untouched", async () => {
    expect((await local.umbel(["spawn", "h", "--host", "box"])).stdout).toBe("box:h\n");
    const baseline = (await local.umbel(["send", "box:h", "fake:hang"])).stdout.trim();
    const child = Bun.spawn([UMBEL, "wait", "box:h", "--after", baseline, "--timeout", "5m", "--json"], {
      cwd: local.work,
      env: local.env,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const remoteWait = await eventually(() => remoteWaits()[0], 10_000, "the remote wait to run");
    child.kill("SIGINT");
    const started = performance.now();
    const [stdout, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
    expect(parse(stdout)).toMatchObject({ error: { code: "aborted", data: { host: "box" } } });
    expect(code).toBe(130);
    expect(performance.now() - started).toBeLessThan(5_000);
    // Its stdin's EOF told the remote umbel its caller was gone: no wait left there for 5 minutes.
    await eventually(() => !isRunning(remoteWait), 10_000, "the remote wait to end");
    expect(parse((await local.umbel(["status", "box:h", "--json"])).stdout)).toMatchObject({ state: "busy" });
    expect((await local.umbel(["kill", "box:h"])).code).toBe(0);
  });

  test("hosts at once: an umbel of another protocol, a host that refuses and one with no umbel, beside the box", async () => {
    // What umbel 0.1.0 (before hosts) answers: no protocol in --version, no --stdin-json.
    const old = join(remote.dir, "old-umbel");
    await writeFile(
      old,
      `#!/bin/sh
case "$1" in
  --version) echo '{"version":"0.0.9","commit":"c","bun":"1.4.5","platform":"linux","arch":"x64"}' ;;
  ls) echo '[]' ;;
  doctor) echo '{"ok":true,"checks":[]}' ;;
  *) echo 'umbel: Missing required positional argument: NAME' >&2
     echo '{"error":{"code":"usage","class":"UsageError","message":"Missing required positional argument: NAME","exitCode":2,"data":{}}}'
     exit 2 ;;
esac
`,
    );
    await chmod(old, 0o755);
    const config = join(local.root, "config.toml");
    const before = readFileSync(config, "utf8");
    // gone: 127.0.0.1's port 22 under the test's ssh config, which holds no key for it: refused.
    await writeFile(
      config,
      `${before}[hosts.old]\nssh = "box"\numbel = "${old}"\n[hosts.gone]\nssh = "127.0.0.1"\nssh_command = "ssh -p 1"\n[hosts.bare]\nssh = "box"\numbel = "/nonexistent/umbel"\n`,
    );
    try {
      // UMBEL_SSH_COMMAND (the test's ssh -F) wins over gone's own ssh_command, as GIT_SSH_COMMAND
      // would: ssh never reads the passwd home's ~/.ssh/config here.
      const withSsh = JSON.parse((await local.umbel(["hosts", "--json"])).stdout) as Record<
        string,
        unknown
      >[];
      expect(
        withSsh.map((h) => [h.name, h.reachable, (h.error as { code?: string } | null)?.code ?? null]),
      ).toEqual([
        ["box", true, null],
        ["old", true, "protocol-mismatch"],
        ["gone", false, "unreachable"],
        ["bare", true, "remote-umbel-missing"],
      ]);
      expect(withSsh[1]).toMatchObject({ version: "0.0.9", protocol: null });
      const verb = await local.umbel(["read", "old:w", "--json"]);
      expect(verb.stderr).toContain("does not speak protocol 1");
      expect(parse(verb.stdout)).toMatchObject({
        error: { code: "protocol-mismatch", data: { host: "old" } },
      });
      expect(verb.code).toBe(127);
      const bare = await local.umbel(["status", "bare:w", "--json"]);
      expect(parse(bare.stdout)).toMatchObject({
        error: { code: "remote-umbel-missing", data: { host: "bare" } },
      });
      expect(bare.code).toBe(127);
    } finally {
      await writeFile(config, before);
    }
  });

  test("ls and status over this machine and two hosts, all at once; a host that refuses is an entry beside them", async () => {
    const second = await createSandbox();
    const config = join(local.root, "config.toml");
    const before = readFileSync(config, "utf8");
    // two: a second host's umbel (its own state root and tmux) behind the same sshd; gone: refused.
    await writeFile(
      config,
      `${before}[hosts.two]\nssh = "box"\numbel = "${await writeRemoteUmbel(second)}"\n[hosts.gone]\nssh = "127.0.0.1"\n`,
    );
    try {
      expect((await local.umbel(["spawn", "here"])).code).toBe(0);
      expect((await local.umbel(["spawn", "a", "--host", "box"])).stdout).toBe("box:a\n");
      expect((await local.umbel(["spawn", "b", "--host", "two"])).stdout).toBe("two:b\n");
      const ls = await local.umbel(["ls", "--json"]);
      const entries = JSON.parse(ls.stdout) as Record<string, unknown>[];
      // The earlier tests' tombstones on box are left out: this test's own workers, in order.
      const ours = (name: unknown) => name === undefined || ["here", "box:a", "two:b"].includes(String(name));
      expect(entries.filter((e) => ours(e.name)).map((e) => [e.host, e.name ?? null, e.state])).toEqual([
        [null, "here", "idle"],
        ["box", "box:a", "idle"],
        ["two", "two:b", "idle"],
        ["gone", null, "unreachable"],
      ]);
      expect(ls.code).toBe(0);
      const text = await local.umbel(["ls"]);
      const lines = text.stdout.trimEnd().split("\n");
      expect(lines[0]).toMatch(/^HOST\s+NAME\s+STATE\s+PROVIDER\s+CWD$/);
      const rows = lines
        .slice(1)
        .filter((l) => ["here", "box:a", "two:b", "-"].includes(l.split(/\s+/)[1] ?? ""));
      expect(rows.map((l) => l.split(/\s+/).slice(0, 3))).toEqual([
        ["-", "here", "idle"],
        ["box", "box:a", "idle"],
        ["two", "two:b", "idle"],
        ["gone", "-", "unreachable"],
      ]);
      expect(rows[3]).toContain("host gone is unreachable: ");
      const status = JSON.parse((await local.umbel(["status", "--json"])).stdout) as unknown;
      expect(status).toEqual(entries);
      // The host's own view is its own workers only: one hop.
      expect(JSON.parse((await second.umbel(["ls", "--json"])).stdout)).toMatchObject([{ name: "b" }]);
    } finally {
      await writeFile(config, before);
      await local.umbel(["kill", "here", "--purge"]);
      await local.umbel(["kill", "box:a", "--purge"]);
      await second.umbel(["kill", "b", "--purge"]);
      await second.dispose();
    }
  });

  test("wait --any/--all over this machine's worker and the box's: one remote wait each, at once", async () => {
    expect((await local.umbel(["spawn", "lw"])).code).toBe(0);
    expect((await local.umbel(["spawn", "rw", "--host", "box"])).stdout).toBe("box:rw\n");
    expect((await local.umbel(["spawn", "rq", "--host", "box"])).stdout).toBe("box:rq\n");
    try {
      expect((await local.umbel(["send", "lw", "fake:slow 500"])).code).toBe(0);
      expect((await local.umbel(["send", "box:rw", "fake:hang"])).code).toBe(0);
      const any = await local.umbel(["wait", "--any", "box:rw", "lw", "--timeout", "30s", "--json"]);
      expect(parse(any.stdout)).toMatchObject({ name: "lw", reason: "stop", pending: ["box:rw"] });
      expect(any.code).toBe(0);
      // The remote wait it stopped ended with its ssh: none is left running there.
      await eventually(() => remoteWaits().length === 0, 10_000, "the stopped remote wait to end");
      expect(parse((await local.umbel(["status", "box:rw", "--json"])).stdout)).toMatchObject({
        state: "busy",
      });
      expect((await local.umbel(["send", "lw", "again"])).code).toBe(0);
      expect((await local.umbel(["send", "box:rq", "over there"])).code).toBe(0);
      const all = await local.umbel(["wait", "--all", "lw", "box:rq", "--timeout", "30s", "--json"]);
      const result = parse(all.stdout) as { outcomes: { name: string; reason: string }[] };
      expect(result.outcomes.map((o) => [o.name, o.reason])).toEqual([
        ["lw", "stop"],
        ["box:rq", "stop"],
      ]);
      expect(all.code).toBe(0);
    } finally {
      for (const name of ["lw", "box:rw", "box:rq"]) await local.umbel(["kill", name, "--purge"]);
    }
  });

  test("-p --host box: the whole -p runs there, its prompt on no argv; nothing of it left on either side", async () => {
    const before = JSON.parse((await remote.umbel(["ls", "--json"])).stdout) as unknown[];
    const prompt = `p-canary-${crypto.randomUUID()}`;
    const { result, argvs } = await sampleArgv(() => local.umbel(["-p", "--host", "box", prompt]));
    const sha12 = new Bun.CryptoHasher("sha256").update(prompt).digest("hex").slice(0, 12);
    expect(result.stdout).toStartWith(`FAKE-REPLY len=${prompt.length} sha=${sha12} head=`);
    expect(result.code).toBe(0);
    // Only the caller's own argv holds it (given there as an argument): no ssh's, no remote's.
    for (const argv of argvs)
      if (!argv.startsWith(`${UMBEL} -p --host box`)) expect(argv).not.toContain(prompt);
    expect([...argvs].some((a) => a.includes("remote-umbel -p --stdin-json"))).toBe(true);
    // -p removed its anonymous worker on the host, as a local -p does.
    expect(JSON.parse((await remote.umbel(["ls", "--json"])).stdout)).toHaveLength(before.length);
    const json = await local.umbel(["-p", "--host", "box", "--output-format", "json"], {
      stdin: "from stdin",
    });
    expect(parse(json.stdout)).toMatchObject({
      type: "result",
      result: expect.stringMatching(/^FAKE-REPLY len=10 /),
    });
    expect(json.code).toBe(0);
  });

  test("Ctrl-C on -p --host: exit 130 here, and the host's -p removes its worker", async () => {
    const count = async () => (JSON.parse((await remote.umbel(["ls", "--json"])).stdout) as unknown[]).length;
    const before = await count();
    const child = Bun.spawn([UMBEL, "-p", "--host", "box", "fake:hang"], {
      cwd: local.work,
      env: local.env,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    await eventually(async () => (await count()) > before, 20_000, "the host's -p worker to start");
    child.kill("SIGINT");
    expect(await child.exited).toBe(130);
    await eventually(async () => (await count()) === before, 20_000, "the host's -p to remove its worker");
  });

  test("one hop: a host's --stdin-json wait that names HOST:NAME, in names too, is refused there", async () => {
    const envelope = (input: Record<string, unknown>) =>
      `${JSON.stringify({ protocol: 1, input, held: false })}\n`;
    for (const input of [{ name: "x:a" }, { name: "a", names: ["x:b"], all: true }]) {
      const r = await remote.umbel(["wait", "--stdin-json", "--json"], { stdin: envelope(input) });
      expect(parse(r.stdout)).toMatchObject({ error: { code: "usage" } });
      expect(r.stderr).toContain("names a worker of this host only");
      expect(r.code).toBe(2);
    }
  });

  test("sshd stopped mid-wait, then started again on its port: the wait goes on and ends stop with the answer", async () => {
    expect((await local.umbel(["spawn", "d", "--host", "box"])).stdout).toBe("box:d\n");
    const baseline = (await local.umbel(["send", "box:d", "fake:slow 4000"])).stdout.trim();
    const trace = join(local.dir, "wait-trace.log");
    const child = Bun.spawn([UMBEL, "wait", "box:d", "--after", baseline, "--timeout", "60s", "--json"], {
      cwd: local.work,
      env: { ...local.env, UMBEL_TRACE: trace },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const remoteWait = await eventually(() => remoteWaits()[0], 10_000, "the remote wait to run");
    await sshd.stop();
    try {
      // The link's end ended the remote wait (its stdin closed), never the worker.
      await eventually(() => !isRunning(remoteWait), 10_000, "the remote wait to end with the link");
    } finally {
      await sshd.start();
    }
    const [stdout, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
    expect(parse(stdout)).toMatchObject({
      name: "box:d",
      reason: "stop",
      baseline: Number(baseline),
      evidence: { message: expect.stringMatching(/^FAKE-REPLY/) },
    });
    expect(code).toBe(0);
    // It was the same wait, called again over a new connection once the link came back.
    const timeline = readFileSync(trace, "utf8");
    expect(timeline).toContain("ssh box wait: link down");
    expect(timeline.split("\n").filter((l) => /ssh box wait: exit 0 /.test(l))).toHaveLength(1);
    expect((await local.umbel(["read", "box:d"])).stdout).toStartWith("FAKE-REPLY");
    expect((await local.umbel(["kill", "box:d", "--purge"])).code).toBe(0);
  });

  test("over MCP, sshd stopped mid-wait: umbel_wait's progress goes on from the retried call, still growing", async () => {
    expect((await local.umbel(["spawn", "e", "--host", "box"])).stdout).toBe("box:e\n");
    const baseline = Number((await local.umbel(["send", "box:e", "fake:slow 8000"])).stdout.trim());
    const client = await connectUmbelMcp(local, "umbel-e2e-hosts-progress");
    try {
      const progress: Progress[] = [];
      const waiting = client.callTool(
        { name: "umbel_wait", arguments: { name: "box:e", after: baseline, timeout: "60s" } },
        undefined,
        { onprogress: (p) => progress.push(p) },
      );
      const remoteWait = await eventually(() => remoteWaits()[0], 10_000, "the remote wait to run");
      await eventually(() => progress.length > 0, 10_000, "a first update");
      await sshd.stop();
      let before: number;
      try {
        await eventually(() => !isRunning(remoteWait), 10_000, "the remote wait to end with the link");
      } finally {
        before = progress.length;
        await sshd.start();
      }
      const r = (await waiting) as ToolResult;
      expect(r.structuredContent).toMatchObject({ name: "box:e", reason: "stop", baseline });
      // Updates of the second call, their progress the whole wait's: past every one of the first.
      expect(progress.length).toBeGreaterThan(before);
      for (const [i, p] of progress.entries())
        if (i > 0) expect(p.progress).toBeGreaterThan(progress[i - 1]?.progress ?? 0);
    } finally {
      await client.close();
    }
    expect((await local.umbel(["kill", "box:e", "--purge"])).code).toBe(0);
  });

  test("sshd stopped: hosts shows unreachable within its bound; a verb on box:w is exit 69", async () => {
    await sshd.stop();
    try {
      const started = performance.now();
      const r = await local.umbel(["hosts", "--json"]);
      const [box] = JSON.parse(r.stdout) as Record<string, unknown>[];
      expect(box).toMatchObject({ name: "box", reachable: false, error: { code: "unreachable" } });
      expect(r.code).toBe(0);
      expect(performance.now() - started).toBeLessThan(10_000);
      // The fleet view: the host one entry with its reason, within its bound; ls itself works.
      const lsStarted = performance.now();
      const ls = await local.umbel(["ls", "--json"]);
      expect(JSON.parse(ls.stdout)).toMatchObject([
        { host: "box", state: "unreachable", code: "unreachable", reason: expect.stringContaining("box") },
      ]);
      expect(ls.code).toBe(0);
      expect(performance.now() - lsStarted).toBeLessThan(12_000);
      const status = await local.umbel(["status", "box:w", "--json"]);
      expect(status.stderr).toStartWith("umbel: host box is unreachable: ");
      expect(parse(status.stdout)).toMatchObject({
        error: { code: "unreachable", exitCode: 69, data: { host: "box" } },
      });
      expect(status.code).toBe(69);
    } finally {
      await sshd.start();
    }
  });
});
