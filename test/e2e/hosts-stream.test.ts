import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Progress } from "@modelcontextprotocol/sdk/types.js";
import { createTmux } from "../../src/adapters/tmux.ts";
import { connectUmbelMcp, type ToolResult } from "../helpers/mcp-client.ts";
import { stdinJsonProcesses } from "../helpers/proc.ts";
import { eventually, type Sandbox, UMBEL } from "../helpers/sandbox.ts";
import { createHostPair, type HostPair, hasSshd } from "../helpers/sshd.ts";

// A real sshd, two umbels and a fake claude on real tmux: seconds a test (bun's default is 5 s).
setDefaultTimeout(60_000);

/**
 * The verbs on a host's worker that stream (docs/hosts.md): logs and logs -f, attach through
 * ssh -t, -p --host's stream-json as the turn goes, exec --host; over the real sshd of
 * test/helpers/sshd.ts, as test/e2e/hosts.test.ts.
 */

let pair: HostPair;
let local: Sandbox;
let remote: Sandbox;

beforeAll(async () => {
  if (!hasSshd()) throw new Error("no sshd: apt-get install openssh-server (.ci/run installs it)");
  pair = await createHostPair();
  ({ local, remote } = pair);
  expect((await local.umbel(["spawn", "w", "--host", "box"])).stdout).toBe("box:w\n");
  expect((await local.umbel(["send", "box:w", "fake:reply first"])).code).toBe(0);
  expect((await local.umbel(["wait", "box:w"])).code).toBe(0);
});

afterAll(async () => {
  await pair?.dispose();
});

/** A child umbel here, its stdout gathered as it comes. */
function start(args: string[]) {
  const child = Bun.spawn([UMBEL, ...args], {
    cwd: local.work,
    env: local.env,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const seen = { out: "" };
  const reading = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stdout) seen.out += decoder.decode(chunk);
  })();
  return { child, seen, reading };
}

/** The remote umbel's `VERB --stdin-json` processes, from /proc. */
const remoteRuns = (verb: string) => stdinJsonProcesses(verb, remote.root);

describe("logs on box:NAME", () => {
  test("logs box:w prints what logs w prints on the host, in text and in --json", async () => {
    const [here, there] = await Promise.all([local.umbel(["logs", "box:w"]), remote.umbel(["logs", "w"])]);
    expect(here.stdout).toContain("Stop");
    expect(here.stdout).toBe(there.stdout);
    expect(here.code).toBe(0);
    const [hereJson, thereJson] = await Promise.all([
      local.umbel(["logs", "box:w", "--json"]),
      remote.umbel(["logs", "w", "--json"]),
    ]);
    expect(hereJson.stdout).toBe(thereJson.stdout);
    expect(hereJson.stdout.split("\n").filter(Boolean).length).toBeGreaterThan(1);
    expect(hereJson.code).toBe(0);
    const missing = await local.umbel(["logs", "box:nope"]);
    expect(missing.stderr).toContain("box:");
    expect(missing.code).toBe(3);
  });

  test("logs -f box:w: each new event as it comes; Ctrl-C is exit 130 and the host's logs stops", async () => {
    const { child, seen } = start(["logs", "-f", "box:w"]);
    await eventually(() => seen.out.includes("Stop first"), 20_000, "the events so far");
    await eventually(() => remoteRuns("logs").length === 1, 10_000, "the host's logs -f");
    expect((await local.umbel(["send", "box:w", "fake:reply followed"])).code).toBe(0);
    await eventually(() => seen.out.includes("Stop followed"), 20_000, "the new Stop, while -f runs");
    expect(child.exitCode).toBeNull();
    child.kill("SIGINT");
    expect(await child.exited).toBe(130);
    await eventually(() => remoteRuns("logs").length === 0, 20_000, "the host's logs -f to end");
    // The worker is untouched.
    expect(JSON.parse((await local.umbel(["status", "box:w", "--json"])).stdout).state).toBe("idle");
  });

  test("logs -f --json box:NAME ends (exit 0) when the worker there is gone", async () => {
    expect((await local.umbel(["spawn", "gone", "--host", "box"])).stdout).toBe("box:gone\n");
    const { child, seen } = start(["logs", "-f", "--json", "box:gone"]);
    await eventually(() => seen.out.includes('"SessionStart"'), 20_000, "the first event");
    expect((await local.umbel(["kill", "box:gone"])).code).toBe(0);
    expect(await child.exited).toBe(0);
    for (const line of seen.out.split("\n").filter(Boolean))
      expect(Object.keys(JSON.parse(line) as object)).toEqual(["index", "event", "payload"]);
  });
});

describe("umbel_logs on box:NAME", () => {
  test("over MCP: the host's events, as logs box:w --json has them", async () => {
    const client = await connectUmbelMcp(local, "umbel-e2e-hosts-stream");
    try {
      const r = (await client.callTool({ name: "umbel_logs", arguments: { name: "box:w" } })) as ToolResult;
      expect(r.isError).toBeFalsy();
      const cli = (await local.umbel(["logs", "box:w", "--json"])).stdout.split("\n").filter(Boolean);
      expect(r.structuredContent).toEqual({ name: "box:w", events: cli.map((l) => JSON.parse(l)) });
    } finally {
      await client.close();
    }
  });
});

describe("umbel_wait's progress on box:NAME", () => {
  test("a progressToken: the host's wait's updates come as progress notifications, growing, before the result", async () => {
    const client = await connectUmbelMcp(local, "umbel-e2e-hosts-progress");
    try {
      const sent = (await client.callTool({
        name: "umbel_send",
        arguments: { name: "box:w", prompt: "fake:slow 3500" },
      })) as ToolResult;
      const { baseline } = sent.structuredContent as { baseline: number };
      const progress: Progress[] = [];
      let done = false;
      const r = (await client.callTool(
        { name: "umbel_wait", arguments: { name: "box:w", after: baseline, timeout: "1m" } },
        undefined,
        {
          onprogress: (p) => {
            // Nothing after the result.
            expect(done).toBe(false);
            progress.push(p);
          },
        },
      )) as ToolResult;
      done = true;
      expect(r.isError).toBeFalsy();
      expect(r.structuredContent).toMatchObject({ name: "box:w", reason: "stop", exitCode: 0, baseline });
      // ~3.5 s busy: one update a second at most, a change of state at once.
      expect(progress.length).toBeGreaterThanOrEqual(2);
      for (const [i, p] of progress.entries()) {
        expect(p.total).toBe(60_000);
        if (i > 0) expect(p.progress).toBeGreaterThan(progress[i - 1]?.progress ?? 0);
      }
      expect(progress.map((p) => p.message).join("\n")).toContain("busy · ");
    } finally {
      await client.close();
    }
    // The CLI's wait prints its outcome alone, as ever: one JSON line.
    const again = await local.umbel(["wait", "box:w", "--json"]);
    expect(again.stdout.trim().split("\n")).toHaveLength(1);
    expect(JSON.parse(again.stdout)).toMatchObject({ name: "box:w", reason: "stop" });
    expect(again.code).toBe(0);
  });
});

describe("attach box:NAME", () => {
  test("through ssh -t in a pane: the host's worker's screen shows there; C-b d detaches, exit 0", async () => {
    const canary = `attach-canary-${crypto.randomUUID().slice(0, 8)}`;
    expect((await local.umbel(["send", "box:w", `fake:reply ${canary}`])).code).toBe(0);
    expect((await local.umbel(["wait", "box:w"])).code).toBe(0);
    // A tmux server of this test's own (its own -L socket), where a person's terminal would be.
    const viewer = createTmux({
      socket: `umbel-attach-test-${crypto.randomUUID().slice(0, 8)}`,
      hostEnv: local.env,
    });
    try {
      const env = Object.entries(local.env).map(([k, v]) => `${k}=${v}`);
      await viewer.newSession({
        name: "viewer",
        cwd: local.work,
        width: 120,
        height: 40,
        // A shell reports attach's exit: with attach as the pane's own process, tmux 3.3 left the
        // exited umbel unreaped (a zombie, pane dead, no pane_dead_status) in 2 runs of 4 here.
        command: [
          "sh",
          "-c",
          'env "$@" attach box:w; echo "attach-exit=$?"; exec sleep 600',
          "sh",
          ...env,
          UMBEL,
        ],
        bufferName: "unused",
        bufferContent: "",
      });
      await eventually(
        async () => (await viewer.capture("viewer"))?.includes(canary),
        20_000,
        "the host's pane on this terminal",
      );
      expect((await viewer.paneInfo("viewer"))?.dead).toBe(false);
      await viewer.sendKeys("viewer", ["C-b", "d"]);
      const screen = await eventually(
        async () => {
          const text = await viewer.capture("viewer");
          return text?.includes("attach-exit=") ? text : null;
        },
        20_000,
        "attach to end once detached",
      );
      expect(screen).toContain("attach-exit=0");
    } finally {
      await viewer.killServer().catch(() => undefined);
    }
    // Detaching leaves the worker as it was.
    expect(JSON.parse((await local.umbel(["status", "box:w", "--json"])).stdout).state).toBe("idle");
  });

  test("without a terminal: a usage error here, before any ssh", async () => {
    const r = await local.umbel(["attach", "box:w"]);
    expect(r.stderr).toContain("needs a terminal");
    expect(r.code).toBe(2);
  });
});

describe("-p --host and exec --host", () => {
  test("stream-json: the first line (system/init) is here while the host's turn still runs", async () => {
    const workers = async () =>
      JSON.parse((await remote.umbel(["ls", "--json"])).stdout) as { name: string; state: string }[];
    const before = (await workers()).length;
    const { child, seen, reading } = start([
      "-p",
      "--host",
      "box",
      "--output-format",
      "stream-json",
      "--verbose",
      "fake:slow 4000",
    ]);
    await eventually(() => seen.out.includes('"subtype":"init"'), 30_000, "the init line");
    // Ordering only: when init is here, the turn there has not ended (no result yet, its worker busy).
    const atInit = seen.out;
    const busy = (await workers()).filter((w) => w.state === "busy");
    expect(atInit).not.toContain('"type":"result"');
    expect(busy.length).toBeGreaterThan(0);
    expect(await child.exited).toBe(0);
    await reading;
    const lines = seen.out.split("\n").filter(Boolean);
    expect(JSON.parse(lines[0] ?? "{}")).toMatchObject({ type: "system", subtype: "init" });
    expect(JSON.parse(lines.at(-1) ?? "{}")).toMatchObject({ type: "result" });
    await eventually(
      async () => (await workers()).length === before,
      20_000,
      "the host's -p to remove its worker",
    );
  });

  test("exec --host box: codex exec's dialect run there, its --json lines and exit code as they came", async () => {
    const r = await local.umbel(["exec", "--host", "box", "--json", "fake:reply from exec"]);
    expect(r.code).toBe(0);
    const events = r.stdout
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string });
    expect(events[0]?.type).toBe("thread.started");
    expect(events.at(-1)?.type).toBe("turn.completed");
    expect(r.stdout).toContain("from exec");
    const text = await local.umbel(["exec", "--host", "box", "fake:reply plain exec"]);
    expect(text.stdout).toBe("plain exec\n");
    expect(text.code).toBe(0);
  });

  test("-p --dialect gemini --host box: gemini -p's output, from the host", async () => {
    // The host's fake gemini is not signed in: any provider's turn prints in gemini's dialect.
    const r = await local.umbel([
      "-p",
      "--dialect",
      "gemini",
      "--provider",
      "claude",
      "--host",
      "box",
      "--output-format",
      "json",
      "fake:reply gem",
    ]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ response: "gem" });
  });
});
