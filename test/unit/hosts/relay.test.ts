import { describe, expect, test } from "bun:test";
import { HostUnreachableError, UsageError } from "../../../src/core/errors.ts";
import { PROTOCOL } from "../../../src/core/hosts/protocol.ts";
import { VERBS } from "../../../src/faces/verbs/table.ts";
import type { Verb } from "../../../src/faces/verbs/verb.ts";
import { createFakeWorld } from "../../helpers/fake-deps.ts";

/** The verbs that reach a host: HOST:NAME (spawn: --host) runs over ssh; a local name never does. */

const verb = (name: string): Verb => VERBS.find((v) => v.name === name) as Verb;

function world(env: Record<string, string> = {}) {
  const w = createFakeWorld({ env: { PATH: "/usr/bin", HOME: "/home/u", ...env } });
  w.files.set("/state/config.toml", '[hosts.box]\nssh = "ci@box"\numbel = "~/bin/umbel"\n');
  return w;
}

async function call(w: ReturnType<typeof world>, name: string, raw: Record<string, unknown>) {
  const v = verb(name);
  return v.run(v.input.parse(raw), { deps: w.deps, terminal: false });
}

describe("a verb on box:NAME", () => {
  test("send: the prompt only on ssh's stdin; the argv names the verb and --stdin-json", async () => {
    const w = world();
    const sent = { name: "w", baseline: 4, promptId: null, enters: 1, elapsedMs: 80, queued: undefined };
    w.onSsh = () => ({ exitCode: 0, stdout: `${JSON.stringify(sent)}\n` });
    const result = await call(w, "send", { name: "box:w", prompt: "the secret plan" });
    expect(result).toEqual({ ...sent, name: "box:w" });
    const [run] = w.sshRuns;
    expect(run?.argv.slice(0, 2)).toEqual(["ssh", "-T"]);
    expect(run?.argv.slice(-3)).toEqual(["--", "ci@box", "~/bin/umbel send --stdin-json --json"]);
    expect(run?.argv.join(" ")).not.toContain("secret");
    expect(run?.controlDir).toBe("/state/ssh");
    expect(JSON.parse(run?.input ?? "")).toEqual({
      protocol: PROTOCOL,
      input: { name: "w", prompt: "the secret plan" },
      held: true,
    });
  });

  test("spawn --host: --env NAME's value from this environment, in the envelope; the name comes back HOST:NAME", async () => {
    const w = world({ TOKEN: "canary-123" });
    w.onSsh = () => ({
      exitCode: 0,
      stdout: `${JSON.stringify({ name: "w", provider: "claude", cwd: "/r", sessionId: "s", state: "ready", elapsedMs: 9, dialogsAnswered: [], dialogs: [] })}\n`,
    });
    const result = (await call(w, "spawn", {
      name: "w",
      host: "box",
      env: { TOKEN: { fromEnv: "TOKEN" }, PLAIN: "1" },
      startTimeout: "2m",
    })) as { name: string };
    expect(result.name).toBe("box:w");
    const [run] = w.sshRuns;
    expect(run?.argv.at(-1)).toBe("~/bin/umbel spawn --stdin-json --json");
    expect(run?.argv.join(" ")).not.toContain("canary");
    expect(JSON.parse(run?.input ?? "").input).toEqual({
      name: "w",
      env: { TOKEN: "canary-123", PLAIN: "1" },
      startTimeout: "120000ms",
    });
    // The bound: spawn's own start timeout plus the link's margin.
    expect(run?.timeoutMs).toBe(150_000);
  });

  test("wait: the outcome's exit code is the remote's; the bound is its timeout plus the margin", async () => {
    const w = world();
    w.onSsh = () => ({
      exitCode: 124,
      stdout: `${JSON.stringify({ name: "w", reason: "timeout", exitCode: 124, baseline: 2, elapsedMs: 1000, evidence: {} })}\n`,
    });
    const v = verb("wait");
    const result = await call(w, "wait", { name: "box:w", timeout: "1s" });
    expect(v.exitCode(result)).toBe(124);
    expect(w.sshRuns[0]?.timeoutMs).toBe(31_000);
  });

  test("a host that does not answer: HostUnreachableError (exit 69)", async () => {
    const w = world();
    const error = await call(w, "read", { name: "box:w" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HostUnreachableError);
    expect(error).toMatchObject({ exitCode: 69, data: { host: "box" } });
  });

  test("an unknown host is a usage error before any ssh, in wait --any's names too", async () => {
    const w = world();
    expect(await call(w, "kill", { name: "bx:w" }).catch((e: unknown) => e)).toBeInstanceOf(UsageError);
    expect(
      await call(w, "wait", { name: "box:w", names: ["bx:x"], any: true }).catch((e: unknown) => e),
    ).toBeInstanceOf(UsageError);
    expect(w.sshRuns).toEqual([]);
  });

  test("a local name never touches ssh", async () => {
    const w = world();
    const error = await call(w, "status", { name: "w" }).catch((e: unknown) => e);
    expect((error as { code?: string }).code).toBe("not-found");
    expect(w.sshRuns).toEqual([]);
  });

  test("the schemas: HOST:NAME where a name is taken, --host on spawn only", () => {
    for (const name of [
      "send",
      "wait",
      "answer",
      "read",
      "kill",
      "status",
      "capture",
      "keys",
      "logs",
      "attach",
    ])
      expect(
        verb(name).input.safeParse({ name: "box:w", prompt: "p" }).error?.issues ?? [],
      ).not.toContainEqual(expect.objectContaining({ path: ["name"] }));
    expect(verb("spawn").input.safeParse({ name: "box:w" }).success).toBe(false);
    expect(verb("attach").input.safeParse({ name: "box:w" }).success).toBe(true);
    expect(verb("attach").input.safeParse({ name: "Box!:w" }).success).toBe(false);
    expect(verb("capture").input.safeParse({ name: "box:w" }).success).toBe(true);
  });
});

describe("the streaming verbs on box:NAME", () => {
  test("logs -f: each event handed on as its line comes, the name and follow in the envelope, no bound of time", async () => {
    const w = world();
    const entry = (index: number, event: string) => ({ index, event, payload: { n: index } });
    w.onSsh = () => ({
      exitCode: 0,
      stdout: `${JSON.stringify(entry(1, "SessionStart"))}\n${JSON.stringify(entry(2, "Stop"))}\n`,
    });
    const seen: unknown[] = [];
    const v = verb("logs");
    const result = await v.run(v.input.parse({ name: "box:w", follow: true }), {
      deps: w.deps,
      terminal: false,
      progress: (event) => seen.push(event),
    });
    expect(seen).toEqual([
      { index: 1, name: "SessionStart", payload: { n: 1 } },
      { index: 2, name: "Stop", payload: { n: 2 } },
    ]);
    expect(result).toEqual({ name: "box:w", events: [entry(1, "SessionStart"), entry(2, "Stop")] });
    const [run] = w.sshRuns;
    expect(run?.argv.slice(-2)).toEqual(["ci@box", "~/bin/umbel logs --stdin-json --json"]);
    expect(JSON.parse(run?.input ?? "").input).toEqual({ name: "w", follow: true });
    expect(run?.timeoutMs).toBe(Number.POSITIVE_INFINITY);
  });

  test("logs: the host's error (no such worker) is its typed error; a dropped link is exit 69", async () => {
    const w = world();
    const error = {
      code: "not-found",
      class: "WorkerNotFoundError",
      message: "no worker w",
      exitCode: 3,
      data: {},
    };
    w.onSsh = () => ({ exitCode: 3, stdout: `${JSON.stringify({ error })}\n` });
    const v = verb("logs");
    const run = () => v.run(v.input.parse({ name: "box:w" }), { deps: w.deps, terminal: false });
    await expect(run()).rejects.toMatchObject({
      code: "not-found",
      exitCode: 3,
      message: "box: no worker w",
    });
    w.onSsh = () => ({ exitCode: 255, stderr: "Connection reset" });
    await expect(run()).rejects.toBeInstanceOf(HostUnreachableError);
  });

  test("attach: ssh -t on this terminal, the name quoted on the remote line; no terminal is a usage error first", async () => {
    const w = world();
    w.onSsh = () => ({ exitCode: 0 });
    const v = verb("attach");
    const result = await v.run(v.input.parse({ name: "box:w" }), { deps: w.deps, terminal: true });
    expect(result).toEqual({ name: "box:w", exitCode: 0 });
    const [run] = w.sshRuns;
    expect(run?.argv[1]).toBe("-t");
    expect(run?.argv.slice(-2)).toEqual(["ci@box", "~/bin/umbel attach w"]);
    await expect(
      v.run(v.input.parse({ name: "box:w" }), { deps: w.deps, terminal: false }),
    ).rejects.toBeInstanceOf(UsageError);
    expect(w.sshRuns).toHaveLength(1);
    w.onSsh = () => ({ exitCode: 255 });
    await expect(
      v.run(v.input.parse({ name: "box:w" }), { deps: w.deps, terminal: true }),
    ).rejects.toBeInstanceOf(HostUnreachableError);
  });
});

describe("umbel hosts", () => {
  test("every host at once: probe, then a round trip over the master", async () => {
    const w = world();
    w.files.set("/state/config.toml", '[hosts.box]\nssh = "ci@box"\n[hosts.gone]\nssh = "gone"\n');
    w.onSsh = (argv) => {
      if (argv.includes("gone")) return { exitCode: 255, stderr: "ssh: Could not resolve hostname gone" };
      if (argv.at(-1) === "true") return { exitCode: 0, durationMs: 3 };
      return {
        exitCode: 1,
        stdout: `{"version":"0.1.0","protocol":${PROTOCOL}}\n[]\n{"ok":true,"checks":[]}\n`,
      };
    };
    const result = (await call(w, "hosts", {})) as {
      hosts: { name: string; reachable: boolean; rttMs: number | null }[];
    };
    expect(result.hosts.map(({ name, reachable, rttMs }) => ({ name, reachable, rttMs }))).toEqual([
      { name: "box", reachable: true, rttMs: 3 },
      { name: "gone", reachable: false, rttMs: null },
    ]);
    expect(w.sshRuns.every((r) => r.timeoutMs <= 10_000)).toBe(true);
  });
});
