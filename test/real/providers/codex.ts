// The real codex-cli 0.171.0 against the stub model: its world (a "user" CODEX_HOME whose
// config.toml points codex at the stub) and what the shared scenarios expect of it.
import { expect } from "bun:test";
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { seedCodexWorld, stubProviderToml } from "../../helpers/codex-world.ts";
import { createSandbox } from "../../helpers/sandbox.ts";
import { limit } from "../../stub-model/limits.ts";
import { startStubModel } from "../../stub-model/stub-model.ts";
import type { AccountsProfile } from "../scenarios/accounts.ts";
import { json, type RealWorld } from "../scenarios/drive.ts";
import type { FailoverProfile } from "../scenarios/failover.ts";
import type { FleetProfile } from "../scenarios/fleet.ts";
import type { LimitProfile } from "../scenarios/limits.ts";
import type { WorkerProfile } from "../scenarios/worker.ts";

export type CodexWorld = RealWorld & {
  /** The user's CODEX_HOME, and its config.toml as it was before any worker ran. */
  readonly userHome: string;
  readonly userConfigBefore: string;
};

export const CODEX_SPAWN_FLAGS = ["--provider", "codex", "--start-timeout", "60s"];

/** untrusted: nothing marks the work folder as trusted (umbel's profile must). */
export async function makeCodexWorld(bin: string | null): Promise<CodexWorld> {
  const stub = await startStubModel({ dialect: "openai" });
  const sb = await createSandbox({ untrusted: true });
  const userHome = seedCodexWorld(join(sb.dir, "codex"), stubProviderToml(stub.url)).userCodexHome;
  Object.assign(sb.env, { UMBEL_CODEX_BIN: bin ?? "codex", CODEX_HOME: userHome });
  return {
    sb,
    stub,
    userHome,
    userConfigBefore: readFileSync(join(userHome, "config.toml"), "utf8"),
    async dispose() {
      await sb.dispose();
      await stub.stop();
    },
  };
}

export function codexWorkerProfile(bin: string | null): WorkerProfile<CodexWorld> {
  return {
    label: "codex",
    bin,
    makeWorld: () => makeCodexWorld(bin),
    worker: "rc",
    spawnFlags: CODEX_SPAWN_FLAGS,
    timeout: "60s",
    folder: "an untrusted folder",
    spawned: { state: "ready" },
    first: { prompt: "say hello", reply: "hello from the stub" },
    async checkFirstTurn(w) {
      // The trust lives in umbel's profile, not in the user's config or the project.
      expect(readFileSync(join(w.userHome, "config.toml"), "utf8")).toBe(w.userConfigBefore);
      expect(existsSync(join(w.sb.work, ".codex"))).toBe(false);
    },
    multiLine: "first line\n  second, indented\n\n\"dq\" 'sq' $HOME `tick` \\back\n日本語 🎉 end?",
    permission: (w) => ({
      prompt: "stub:escalate touch escalated.txt",
      asks: "Bash: touch escalated.txt (stub escalation)",
      screen: "Would you like to run the following command?",
      read: { prefix: "STUB-TOOL-RESULT is_error=false" },
      made: { path: join(w.sb.work, "escalated.txt") },
    }),
    approve: { keys: "y" },
    apiError: { status: 401, messageStartsWith: "unexpected status 401 Unauthorized", idleAfter: true },
    // The worker's own codex profile goes with it.
    killRemoves: (w, name) => [join(realpathSync(w.sb.root), "codex-home", `umbel-${name}.config.toml`)],
    leftovers: (w) => [join(w.sb.work, ".codex")],
    print: ["--provider", "codex"],
  };
}

export function codexFleetProfile(bin: string | null): FleetProfile<CodexWorld> {
  return {
    label: "codex",
    bin,
    makeWorld: () => makeCodexWorld(bin),
    spawnFlags: CODEX_SPAWN_FLAGS,
    prefix: "c",
    timeout: "60s",
    rulesFlags: [],
    // What codex asks about is an escalation out of its sandbox: the rule answers that request.
    allowedPrompt: "stub:escalate touch policy.txt",
    logsShowPolicy: false,
    approval: {
      prompt: "stub:escalate mkdir approved",
      made: { file: "approved" },
      answered: { option: { number: 1, label: "Yes, proceed" }, keys: ["y"] },
    },
    deny: {
      prompt: "stub:escalate mkdir denied",
      absent: "denied",
      byInputId: false,
      answered: { keys: ["Escape"] },
    },
    worktree: { flags: [] },
  };
}

/**
 * A 429 `usage_limit_reached` ends codex's turn at once and fires no hook; the rollout's
 * task_complete (codex_error_info usage_limit_exceeded) and its token_count windows decide.
 */
export function codexLimitProfile(bin: string | null): LimitProfile<CodexWorld> {
  return {
    label: "codex",
    bin,
    makeWorld: () => makeCodexWorld(bin),
    worker: "xl",
    spawnFlags: CODEX_SPAWN_FLAGS,
    timeout: "60s",
    how: "from the rollout (no hook fires)",
    reply: limit(1800, "pro"),
    prompt: "use the quota",
    window: "primary",
    resetsIn: 1800,
    message: { limitStartsWith: "You’ve hit your usage limit." },
    async checkLimited(w) {
      // Only UserPromptSubmit fired for the turn (shared notes, limits.md §2.3).
      const logs = (await w.sb.umbel(["logs", "xl"])).stdout;
      expect(logs.split("\n").filter((l) => /Stop|Interrupt/.test(l))).toEqual([]);
      const status = json((await w.sb.umbel(["status", "xl", "--json"])).stdout);
      expect(status.telemetry).toMatchObject({
        costUsd: null,
        missing: { costUsd: "codex records no cost" },
      });
      expect((status.telemetry as { windows: { name: string }[] }).windows.map((x) => x.name)).toEqual([
        "primary",
        "secondary",
      ]);
      // Its "Approaching rate limits / Switch to … ?" popup was answered "Keep current model" by wait.
      const screen = (await w.sb.umbel(["capture", "xl"])).stdout;
      expect(screen).not.toContain("Approaching rate limits");
      expect(screen).toContain("5h limit: only <1% left");
    },
  };
}

const KEYS = { KEY_A: "sk-account-a-0123456789", KEY_B: "sk-account-b-0123456789" };

/**
 * Failover on two accounts cxa and cxb (docs/accounts.md, "Failover"): each a CODEX_HOME of its own
 * whose stub provider takes its key from STUB_TOKEN, which each account maps from its own variable;
 * the rollout is carried into cxb's managed home and `codex resume <id>`d there.
 */
export function codexFailoverProfile(bin: string | null): FailoverProfile<CodexWorld> {
  return {
    label: "codex",
    bin,
    async makeWorld() {
      const world = await makeCodexWorld(bin);
      Object.assign(world.sb.env, KEYS);
      return world;
    },
    provider: "codex",
    accounts: ["cxa", "cxb"],
    signIn: (w, account) => ({
      home: seedCodexWorld(
        join(w.sb.dir, `acct-${account}`),
        `${stubProviderToml(w.stub.url)}env_key = "STUB_TOKEN"\n`,
      ).userCodexHome,
      env: { STUB_TOKEN: account === "cxa" ? "KEY_A" : "KEY_B" },
    }),
    defaultWindow: "primary",
    spawnFlags: CODEX_SPAWN_FLAGS,
    firstAnswer: "first answer, on a",
    meets: "a limit",
    resumed: "resumed, with the conversation's earlier messages on cxb's key",
    limited: { prompt: "limit two", reply: limit(600) },
    byAuthorization: {
      a: KEYS.KEY_A,
      b: KEYS.KEY_B,
      requests: { a: { atLeast: 2 }, b: { atLeast: 1 } },
    },
    resendsLimitedPrompt: false,
  };
}

const ACCOUNT_KEYS = {
  default: "sk-default-0123456789",
  a: "sk-account-a-0123456789",
  b: "sk-account-b-0123456789",
};

/**
 * Two accounts a and b and the default sign-in (issue 24): each a home of its own whose auth.json
 * holds its key (the default's the user's CODEX_HOME, signed in the same way); umbel's managed
 * CODEX_HOME for an account links that auth.json, and the stub tells them apart by the bearer token.
 */
export function codexAccountsProfile(bin: string | null): AccountsProfile<CodexWorld> {
  return {
    label: "codex",
    bin,
    makeWorld: () => makeCodexWorld(bin),
    provider: "codex",
    signIn(w, account) {
      const home = account === "default" ? w.userHome : join(w.sb.dir, `codex-${account}`);
      mkdirSync(home, { recursive: true, mode: 0o700 });
      // requires_openai_auth: codex signs its requests to the stub with the sign-in of auth.json.
      const toml = stubProviderToml(w.stub.url).replace(
        'wire_api = "responses"',
        'wire_api = "responses"\nrequires_openai_auth = true',
      );
      writeFileSync(join(home, "config.toml"), toml, { mode: 0o600 });
      writeFileSync(
        join(home, "auth.json"),
        `${JSON.stringify({ auth_mode: "apikey", OPENAI_API_KEY: ACCOUNT_KEYS[account] })}\n`,
        { mode: 0o600 },
      );
      return { home };
    },
    credentials: ACCOUNT_KEYS,
    credentialHeaders: ["authorization"],
    window: "primary",
    // The rate-limit headers codex writes into its rollout's token_count.
    windows: (usedPercent) => ({
      "x-codex-primary-used-percent": String(usedPercent),
      "x-codex-primary-window-minutes": "300",
      "x-codex-primary-reset-at": "{now+3600}",
      "x-codex-secondary-used-percent": "10",
      "x-codex-secondary-window-minutes": "10080",
      "x-codex-secondary-reset-at": "{now+200000}",
    }),
    limited: { reply: limit(1800, "pro") },
    spawnFlags: CODEX_SPAWN_FLAGS,
    carries: "the key of that account's auth.json",
    seen: "from its rollouts",
  };
}
