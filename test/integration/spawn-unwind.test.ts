import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { chmod } from "node:fs/promises";
import { join } from "node:path";
import { createDeps } from "../../src/adapters/deps.ts";
import { AbortedError, SpawnFailedError, UsageError } from "../../src/core/errors.ts";
import { SpawnInput } from "../../src/core/spawn/input.ts";
import { spawnWorker } from "../../src/operations/spawn/spawn.ts";

/** A spawn as a face hands it over: parsed, with the provider resolved (claude, the fake's). */
const spawnInput = (raw: Record<string, unknown>) => ({
  ...SpawnInput.parse(raw),
  provider: "claude" as const,
});

import { createSandbox, type Sandbox } from "../helpers/sandbox.ts";

// Workers on real tmux take seconds a test; bun's default is 5 s (declared here: a preload's
// setDefaultTimeout reaches only the first file of a run, oven-sh/bun#43787).
setDefaultTimeout(60_000);

/** spawn, in process on real tmux: every failure unwinds the session, the buffer and the directory. */
let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox({ untrusted: true });
});
afterAll(async () => {
  await sb.dispose();
});

async function leftovers(name: string) {
  const deps = sb.deps();
  return {
    dir: existsSync(join(sb.root, "sessions", name)),
    session: await deps.tmux.hasSession(name),
  };
}

async function script(name: string, body: string): Promise<string> {
  const path = join(sb.dir, name);
  await Bun.write(path, `#!/bin/sh\n${body}\n`);
  await chmod(path, 0o755);
  return path;
}

function withBin(bin: string) {
  return createDeps({ ...sb.env, UMBEL_CLAUDE_BIN: bin }, { cwd: sb.work });
}

describe("spawn unwinds", () => {
  test("an abort (SIGINT) mid-spawn, while the trust dialog is up", async () => {
    const controller = new AbortController();
    // The untrusted dir keeps the fake on its trust dialog; keys are held back for 300 ms.
    const spawning = spawnWorker(sb.deps(controller.signal), spawnInput({ name: "abort-me" }));
    setTimeout(() => controller.abort(), 150);
    await expect(spawning).rejects.toBeInstanceOf(AbortedError);
    expect(await leftovers("abort-me")).toEqual({ dir: false, session: false });
  });

  test("a CLI that exits during startup: its status and screen are the message", async () => {
    const bin = await script("exits.sh", 'echo "cannot start: config broken"; exit 3');
    const spawning = spawnWorker(withBin(bin), spawnInput({ name: "exits" }));
    await expect(spawning).rejects.toBeInstanceOf(SpawnFailedError);
    await expect(spawnWorker(withBin(bin), spawnInput({ name: "exits" }))).rejects.toThrow(
      /status 3[\s\S]*config broken/,
    );
    expect(await leftovers("exits")).toEqual({ dir: false, session: false });
  });

  test("a TUI that never becomes ready within --start-timeout", async () => {
    const bin = await script("stuck.sh", 'echo "warming up…"; exec sleep 600');
    const spawning = spawnWorker(withBin(bin), spawnInput({ name: "slowpoke", startTimeout: "1s" }));
    await expect(spawning).rejects.toThrow(/not ready within 1000 ms/);
    expect(await leftovers("slowpoke")).toEqual({ dir: false, session: false });
  });
});

describe("a tmux server that is shutting down", () => {
  test("spawn right after the last worker went away starts a new server", async () => {
    const own = await createSandbox();
    try {
      const bin = await script("quick-exit.sh", "exit 0");
      // Each failed spawn kills the only session, so the server exits; the next spawn races it.
      for (let i = 0; i < 5; i++) {
        const error = await spawnWorker(
          createDeps({ ...own.env, UMBEL_CLAUDE_BIN: bin }, { cwd: own.work }),
          spawnInput({ name: `race${i}` }),
        ).catch((e: unknown) => e);
        expect(String(error)).toContain("exited during startup");
      }
    } finally {
      await own.dispose();
    }
  });
});

describe("spawn refuses bad input before it makes anything", () => {
  test("an --add-dir folder that does not exist is a usage error naming it", async () => {
    const missing = join(sb.dir, "no-such-dir");
    const spawning = spawnWorker(sb.deps(), spawnInput({ name: "adddir", addDir: [missing] }));
    await expect(spawning).rejects.toBeInstanceOf(UsageError);
    await expect(spawnWorker(sb.deps(), spawnInput({ name: "adddir", addDir: [missing] }))).rejects.toThrow(
      `--add-dir ${missing} is not a directory`,
    );
    expect(await leftovers("adddir")).toEqual({ dir: false, session: false });
  });
});
