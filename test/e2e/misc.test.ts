import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { copyFileSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { createSandbox, eventually, type Sandbox, UMBEL } from "../helpers/sandbox.ts";

// Workers on real tmux take seconds a test; bun's default is 5 s (declared here: a preload's
// setDefaultTimeout reaches only the first file of a run, oven-sh/bun#43787).
setDefaultTimeout(60_000);

let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox();
});
afterAll(async () => {
  await sb.dispose();
});

describe("the binary's surface", () => {
  test("--version and --help", async () => {
    // The version first (scripts take the first word), then what a bug report needs.
    const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    expect((await sb.umbel(["--version"])).stdout).toMatch(
      new RegExp(
        `^${literal(pkg.version)} \\(commit [0-9a-f]{12}(-dirty)?, bun ${literal(Bun.version)}, ${process.platform}-${process.arch}\\)\\n$`,
      ),
    );
    const help = await sb.umbel(["--help"]);
    for (const verb of [
      "spawn",
      "send",
      "wait",
      "read",
      "status",
      "ls",
      "kill",
      "prune",
      "capture",
      "logs",
      "keys",
      "attach",
    ]) {
      expect(help.stdout).toContain(`  ${verb} `);
    }
    expect(help.code).toBe(0);
    // Bare umbel is a usage error: why on stderr, and stdout carries only results (issue 11).
    const bare = await sb.umbel([]);
    expect(bare.stdout).toBe("");
    expect(bare.stderr).toBe("umbel: no command given (see umbel --help)\n");
    expect(bare.code).toBe(2);
  });

  test("--version --json: the version, the commit it was built from, and the Bun inside", async () => {
    const r = await sb.umbel(["--version", "--json"]);
    const head = Bun.spawnSync(["git", "rev-parse", "HEAD"], { cwd: import.meta.dir })
      .stdout.toString()
      .trim();
    const info = JSON.parse(r.stdout) as Record<string, string>;
    expect(info).toMatchObject({ version: pkg.version, bun: Bun.version, platform: process.platform });
    // The hosts wire's version (docs/hosts.md): a host's umbel must speak the same.
    expect(info.protocol as unknown).toBe(1);
    expect(info.commit?.replace(/-dirty$/, "")).toBe(head);
    expect(r.code).toBe(0);
  });

  test("each verb's --help comes from the schema's descriptions", async () => {
    const r = await sb.umbel(["spawn", "--help"]);
    expect(r.stdout).toContain("--permission-mode");
    expect(r.stdout).toContain("Working directory of the worker");
    expect(r.code).toBe(0);
  });

  test("a verb's --help through a pipe: plain text, a narrow flag column, examples, NAME required", async () => {
    const r = await sb.umbel(["spawn", "--help"]);
    expect(r.stdout).not.toContain("\u001b");
    expect(r.stdout).toStartWith("Usage: umbel spawn NAME [flags]\n");
    expect(r.stdout).toMatch(/\n {2}--cwd CWD {2,}Working directory of the worker/);
    expect(r.stdout).toMatch(/\nExamples:\n {2}umbel spawn /);
    for (const line of r.stdout.split("\n")) expect(line.length).toBeLessThanOrEqual(80);
    expect(r.code).toBe(0);
  });

  test("a verb's --help on a terminal is in colour, unless NO_COLOR is set", async () => {
    // script(1) gives the binary a pseudo-terminal for stdout.
    const onTty = (env: Record<string, string>) =>
      Bun.spawnSync(["script", "-qec", `${UMBEL} wait --help`, "/dev/null"], { env: { ...sb.env, ...env } });
    expect(onTty({}).stdout.toString()).toContain("\u001b[1mUsage:");
    expect(onTty({ NO_COLOR: "1" }).stdout.toString()).not.toContain("\u001b");
  });

  test("--json: every verb's help lists it; completion and mcp, which print formats of their own, refuse it", async () => {
    const commands = (await sb.umbel(["--help"])).stdout.split("Commands:\n")[1]?.split("\n\n")[0] ?? "";
    const verbs = [...commands.matchAll(/^ {2}([a-z]+)/gm)].map((m) => m[1] ?? "");
    expect(verbs).toContain("attach");
    for (const verb of verbs.filter((v) => !["mcp", "completion"].includes(v)))
      expect({ verb, json: (await sb.umbel([verb, "--help"])).stdout.includes("--json") }).toEqual({
        verb,
        json: true,
      });
    for (const args of [
      ["completion", "bash", "--json"],
      ["mcp", "--json"],
    ]) {
      const r = await sb.umbel(args);
      expect(JSON.parse(r.stdout).error).toMatchObject({ code: "usage", exitCode: 2 });
      expect(r.code).toBe(2);
    }
  });

  test("dist/umbel copied alone onto PATH is an install: a turn from any folder, its hooks from inside it", async () => {
    const bin = join(sb.dir, "installed");
    mkdirSync(bin);
    copyFileSync(UMBEL, join(bin, "umbel"));
    const root = join(sb.dir, "copied-state");
    const child = Bun.spawn(["umbel", "-p", "fake:reply from a copy"], {
      cwd: sb.work,
      env: { ...sb.env, PATH: `${bin}:/usr/bin:/bin`, UMBEL_HOME: root },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
    ]);
    expect({ stdout, stderr }).toEqual({ stdout: "from a copy\n", stderr: "" });
    expect(await child.exited).toBe(0);
    expect(readdirSync(join(root, "bin")).map((f) => f.replace(/-[0-9a-f]+\./, "."))).toEqual(
      expect.arrayContaining(["hook.sh", "launch.sh"]),
    );
  });

  test("attach needs a terminal", async () => {
    expect((await sb.umbel(["spawn", "att"])).code).toBe(0);
    const r = await sb.umbel(["attach", "att"]);
    expect(r.stderr).toContain("needs a terminal");
    expect(r.code).toBe(2);
  });

  test("logs -f follows new events and ends when the worker is gone", async () => {
    const child = Bun.spawn([UMBEL, "logs", "att", "-f"], { env: sb.env, stdout: "pipe", stderr: "pipe" });
    let seen = "";
    const reader = (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of child.stdout) seen += decoder.decode(chunk);
    })();
    await eventually(() => seen.includes("SessionStart"), 5000, "the existing events");
    await sb.umbel(["send", "att", "fake:reply followed"]);
    await eventually(() => seen.includes("Stop followed"), 10_000, "the new Stop");
    await sb.umbel(["kill", "att"]);
    expect(await child.exited).toBe(0);
    await reader;
  });
});
