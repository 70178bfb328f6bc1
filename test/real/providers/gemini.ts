// The real gemini-cli 0.61.0 against the stub model (GOOGLE_GEMINI_BASE_URL and a stub API key):
// its world and what the shared scenarios expect of it.
import { expect } from "bun:test";
import { mkdirSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { STUB_KEY } from "../../helpers/gemini-world.ts";
import { createSandbox } from "../../helpers/sandbox.ts";
import { limit } from "../../stub-model/limits.ts";
import { bash, text } from "../../stub-model/replies.ts";
import { startStubModel } from "../../stub-model/stub-model.ts";
import { json, type RealWorld } from "../scenarios/drive.ts";
import type { FailoverProfile } from "../scenarios/failover.ts";
import type { LimitProfile } from "../scenarios/limits.ts";
import type { WorkerProfile } from "../scenarios/worker.ts";

const GEMINI_SPAWN_FLAGS = ["--provider", "gemini", "--start-timeout", "60s"];

/** untrusted: nothing marks the work folder as trusted (umbel's GEMINI_CLI_TRUST_WORKSPACE must). */
export async function makeGeminiWorld(bin: string | null): Promise<RealWorld> {
  const stub = await startStubModel({ dialect: "gemini" });
  const sb = await createSandbox({ untrusted: true });
  Object.assign(sb.env, {
    UMBEL_GEMINI_BIN: bin ?? "gemini",
    GEMINI_API_KEY: STUB_KEY,
    GOOGLE_GEMINI_BASE_URL: stub.url,
  });
  return {
    sb,
    stub,
    async dispose() {
      await sb.dispose();
      await stub.stop();
    },
  };
}

export function geminiWorkerProfile(bin: string | null): WorkerProfile {
  return {
    label: "gemini",
    bin,
    makeWorld: () => makeGeminiWorld(bin),
    worker: "rg",
    spawnFlags: GEMINI_SPAWN_FLAGS,
    timeout: "60s",
    folder: "an untrusted folder",
    spawned: { state: "ready" },
    first: { prompt: "say hello?", reply: "hello from the stub" },
    multiLine: "first line\n  second, indented\n\n\"dq\" 'sq' $HOME `tick` \\back\n日本語 🎉 end?",
    permission: (w) => ({
      reply: bash("echo approved > approved.txt", text("done after approval")),
      prompt: "please run it",
      asks: "Shell: echo approved > approved.txt",
      screen: "Allow execution of [Shell]?",
      read: { exact: "done after approval\n" },
      made: { path: join(w.sb.work, "approved.txt"), content: "approved\n" },
    }),
    approve: { keys: "1" },
    apiError: { status: 400, messageContains: ["API Error", "stub error 400"], usableAfter: true },
    // Nothing in the project or the user's ~/.gemini.
    leftovers: (w) => [join(w.sb.work, ".gemini"), join(w.sb.dir, "home", ".gemini")],
    print: ["--provider", "gemini"],
  };
}

/**
 * The "Usage limit reached" box fires no hook; umbel chooses Stop, gemini writes the error line to
 * its chat file and fires AfterAgent, and that line makes it a limit.
 */
export function geminiLimitProfile(bin: string | null): LimitProfile {
  return {
    label: "gemini",
    bin,
    makeWorld: () => makeGeminiWorld(bin),
    worker: "gl",
    spawnFlags: GEMINI_SPAWN_FLAGS,
    timeout: "60s",
    how: "at the daily quota",
    reply: limit(0, "daily"),
    prompt: "spend my quota",
    window: "daily",
    resetsIn: null,
    message: { contains: "exhausted your daily quota" },
    async checkLimited(w) {
      const status = json((await w.sb.umbel(["status", "gl", "--json"])).stdout);
      expect(status.billing).toMatchObject({ route: "api-key" });
      expect(status.telemetry).toMatchObject({ costUsd: null });
    },
  };
}

/**
 * Failover on two accounts ga and gb at the daily quota (docs/accounts.md, "Failover"): each a home
 * whose .gemini holds its sign-in (the stub is reached with the key the spawn passes by name). The
 * chats stay in the worker's own GEMINI_CLI_HOME, so `gemini --resume <id>` on gb goes on with the
 * same session; both send the one key, so the carried request is the last one. gemini rolls the
 * limited turn's prompt back, so umbel sends that prompt again rather than its continuation prompt.
 */
export function geminiFailoverProfile(bin: string | null): FailoverProfile {
  return {
    label: "gemini",
    bin,
    makeWorld: () => makeGeminiWorld(bin),
    provider: "gemini",
    accounts: ["ga", "gb"],
    signIn(w, account) {
      const home = join(w.sb.dir, `acct-${account}`);
      mkdirSync(join(home, ".gemini"), { recursive: true, mode: 0o700 });
      writeFileSync(join(home, ".gemini", "oauth_creds.json"), `{"refresh_token":"${account}"}\n`, {
        mode: 0o600,
      });
      return { home };
    },
    defaultWindow: "daily",
    spawnFlags: [...GEMINI_SPAWN_FLAGS, "--env", "GEMINI_API_KEY"],
    firstAnswer: "first answer, on ga",
    meets: "at the daily quota",
    resumed: "the session resumed in the worker's own home",
    limited: { prompt: "spend my quota", reply: limit(0, "daily") },
    window: "daily",
    // 0.61.0 rolled the limited turn's prompt back: umbel sent it again (not the continuation prompt).
    resendsLimitedPrompt: true,
    checkOnB(w, gb) {
      const link = join(w.sb.root, "sessions", "fo", "gemini", ".gemini", "oauth_creds.json");
      expect(readlinkSync(link)).toBe(join(gb.home, ".gemini", "oauth_creds.json"));
    },
  };
}
