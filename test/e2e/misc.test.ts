import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
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
    expect((await sb.umbel(["--version"])).stdout).toBe(`${pkg.version}\n`);
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

  test("each verb's --help comes from the schema's descriptions", async () => {
    const r = await sb.umbel(["spawn", "--help"]);
    expect(r.stdout).toContain("--permission-mode");
    expect(r.stdout).toContain("Working directory of the worker");
    expect(r.code).toBe(0);
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
