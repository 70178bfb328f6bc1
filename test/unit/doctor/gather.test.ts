import { describe, expect, test } from "bun:test";
import { runDoctor } from "../../../src/operations/doctor/doctor.ts";
import { createFakeWorld } from "../../helpers/fake-deps.ts";

/** What doctor reads, in memory: no CLI is started when its npm package says its version. */

describe("gathering", () => {
  test("an npm-installed CLI's version comes from its package.json; others run --version", async () => {
    const world = createFakeWorld();
    const probed: string[] = [];
    const deps = {
      ...world.deps,
      host: {
        ...world.deps.host,
        probe: async (argv: readonly string[]) => {
          probed.push(argv[0] ?? "");
          return { exitCode: 0, output: "codex-cli 0.171.0\n", timedOut: false };
        },
      },
      files: {
        ...world.deps.files,
        realpath: async (p: string) =>
          p === "/usr/bin/gemini" ? "/lib/node_modules/@google/gemini-cli/bundle/gemini.js" : p,
      },
    };
    world.files.set(
      "/lib/node_modules/@google/gemini-cli/package.json",
      JSON.stringify({ name: "@google/gemini-cli", version: "0.62.0" }),
    );
    const result = await runDoctor(deps);
    expect(probed.sort()).toEqual(["/usr/bin/claude", "/usr/bin/codex", "/usr/bin/opencode"]);
    expect(result.checks.find((c) => c.id === "gemini")?.message).toBe(
      "/usr/bin/gemini 0.62.0 is newer than 0.61.0, the version umbel is tested with",
    );
  });

  test("the sign-in clues are files that exist (never read) and the account key", async () => {
    const world = createFakeWorld({ env: { PATH: "/usr/bin", HOME: "/home/u" } });
    world.files.set("/home/u/.claude.json", JSON.stringify({ oauthAccount: { emailAddress: "a@b" } }));
    world.files.set("/home/u/.codex/auth.json", "{}");
    const result = await runDoctor(world.deps);
    const status = (id: string) => result.checks.find((c) => c.id === id);
    expect(status("claude-sign-in")).toMatchObject({
      status: "ok",
      message: "signed in (an account is recorded in /home/u/.claude.json)",
    });
    expect(status("codex-sign-in")).toMatchObject({
      status: "ok",
      message: "signed in (found /home/u/.codex/auth.json)",
    });
    expect(status("gemini-sign-in")?.status).toBe("warn");
  });
});
