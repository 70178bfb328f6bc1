// The real Claude Code 2.1.332 against the stub model: its world (a private, seeded config with the
// key approved) and what the shared scenarios expect of it.
import { expect } from "bun:test";
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSandbox, eventually } from "../../helpers/sandbox.ts";
import { limit } from "../../stub-model/limits.ts";
import { bash, text } from "../../stub-model/replies.ts";
import { startStubModel } from "../../stub-model/stub-model.ts";
import { type ClaudeHome, seedClaudeHome } from "../claude-home.ts";
import type { AccountsProfile } from "../scenarios/accounts.ts";
import type { RealWorld } from "../scenarios/drive.ts";
import type { FailoverProfile } from "../scenarios/failover.ts";
import type { FleetProfile } from "../scenarios/fleet.ts";
import type { LimitProfile } from "../scenarios/limits.ts";
import type { WorkerProfile } from "../scenarios/worker.ts";

export const CLAUDE_API_KEY = "sk-ant-test-umbel-real-0123456789abcdefghij";
/** claude reads the key only from a name spawn passes on. */
export const CLAUDE_KEY_FLAGS = ["--env", "ANTHROPIC_API_KEY"];

export type ClaudeWorld = RealWorld & { readonly home: ClaudeHome };

export type ClaudeWorldOptions = {
  /** The work folder's trust dialog counts as accepted (default: no folder is trusted). */
  trusted?: boolean;
  /** CLAUDE_CODE_MAX_RETRIES=0 in the sandbox (the default 10 retries take ~3 min on an error). */
  noRetries?: boolean;
  apiKey?: string;
};

/** A sandbox whose claude has its own seeded config (onboarding done, the key approved) and stub. */
export async function makeClaudeWorld(
  bin: string | null,
  options: ClaudeWorldOptions = {},
): Promise<ClaudeWorld> {
  const apiKey = options.apiKey ?? CLAUDE_API_KEY;
  const stub = await startStubModel({ dialect: "anthropic" });
  const dir = await mkdtemp(join(tmpdir(), "umbel-real-"));
  const sb = await createSandbox({ untrusted: true });
  const home = seedClaudeHome(dir, { apiKey, trustedDirs: options.trusted ? [sb.work] : [] });
  Object.assign(sb.env, {
    HOME: home.home,
    CLAUDE_CONFIG_DIR: home.configDir,
    TMPDIR: home.tmpDir,
    DISABLE_AUTOUPDATER: "1",
    ANTHROPIC_BASE_URL: stub.url,
    ANTHROPIC_API_KEY: apiKey,
    UMBEL_CLAUDE_BIN: bin ?? "claude",
    ...(options.noRetries ? { CLAUDE_CODE_MAX_RETRIES: "0" } : {}),
  });
  return {
    sb,
    stub,
    home,
    async dispose() {
      await sb.dispose();
      await stub.stop();
      await removeSettled(dir);
    },
  };
}

export function claudeWorkerProfile(bin: string | null): WorkerProfile<ClaudeWorld> {
  return {
    label: "claude",
    bin,
    makeWorld: () => makeClaudeWorld(bin),
    worker: "talk",
    spawnFlags: CLAUDE_KEY_FLAGS,
    timeout: "30s",
    folder: "an untrusted folder (the trust dialog answered)",
    spawned: { state: "ready", dialogsAnswered: ["trust"] },
    async checkSpawn(w) {
      // claude records the trust in .claude.json on its own schedule: a spawn that is ready within
      // ms of SessionStart (docs/performance.md) can return before the write lands (seen at load 13).
      const trusted = () => {
        try {
          const config = JSON.parse(readFileSync(join(w.home.configDir, ".claude.json"), "utf8"));
          return config.projects?.[realpathSync(w.sb.work)]?.hasTrustDialogAccepted === true;
        } catch {
          return false; // mid-write
        }
      };
      expect(await eventually(trusted, 5_000, "claude to record the trust").catch(() => false)).toBe(true);
    },
    first: { prompt: "what is 2+2?" },
    multiLine: "first line\n  second, indented   \n\n\"dq\" 'sq' $HOME `tick` \\back\n日本語 🎉 end",
    // claude's own rewrite of a pasted TAB (2.1.332).
    tab: "tab    here",
    permission: (w) => ({
      reply: bash("echo approved > approved.txt", text("done after approval")),
      prompt: "please run it",
      asks: "Bash: echo approved > approved.txt",
      screen: "Do you want to proceed?",
      read: { exact: "done after approval\n" },
      made: { path: join(w.sb.work, "approved.txt"), content: "approved\n" },
    }),
    approve: { keys: "1" },
    apiError: {
      status: 500,
      evidence: { error: "server_error" },
      messageStartsWith: "API Error: 500",
      screenContains: "API Error: 500",
      withinMs: 10_000,
      read: { isError: true, turn: "failure" },
    },
    leftovers: () => [],
    // Each on a worker of its own: claude asks only in manual mode, retries unless told not to.
    ownWorker: {
      permission: { name: "perm", flags: ["--permission-mode", "manual"] },
      apiError: { name: "errs", flags: ["--env", "CLAUDE_CODE_MAX_RETRIES=0"] },
      kill: { name: "doomed", flags: [] },
    },
  };
}

/** A subscriber's plan, and no retries; with failover the token is each account's own. */
const SUBSCRIBER_PLAN = {
  CLAUDE_CODE_SUBSCRIPTION_TYPE: "max",
  CLAUDE_CODE_RATE_LIMIT_TIER: "default_claude_max_20x",
  CLAUDE_CODE_MAX_RETRIES: "0",
};
/** A subscriber's claude (limits.md §1.1): these reach a worker only by name (--env). */
const SUBSCRIBER = { CLAUDE_CODE_OAUTH_TOKEN: "sk-ant-oat01-mock-token-0123456789", ...SUBSCRIBER_PLAN };
export const SUBSCRIBER_FLAGS = Object.keys(SUBSCRIBER).flatMap((name) => ["--env", name]);
const UNUSED_KEY = "sk-ant-unused-0123456789abcdef";
/** The usage-window headers a subscriber's answers carry (statusline rate_limits). */
const WINDOWS = {
  "anthropic-ratelimit-unified-status": "allowed",
  "anthropic-ratelimit-unified-reset": "{now+3600}",
  "anthropic-ratelimit-unified-representative-claim": "five_hour",
  "anthropic-ratelimit-unified-5h-utilization": "0.93",
  "anthropic-ratelimit-unified-5h-reset": "{now+3600}",
  "anthropic-ratelimit-unified-7d-utilization": "0.42",
  "anthropic-ratelimit-unified-7d-reset": "{now+200000}",
};

/**
 * A claude.ai subscriber session offline (shared notes, limits.md §1.1): CLAUDE_CODE_OAUTH_TOKEN with
 * a mock token, no API key; only then does claude treat the unified rate-limit headers as a usage
 * limit, fill the statusline's rate_limits (from the WINDOWS headers the limit profile's stub sends),
 * and continue by itself. `env`: the plan and the tokens failover's accounts map (no token of its own).
 */
async function makeClaudeSubscriberWorld(
  bin: string | null,
  env: Record<string, string> = SUBSCRIBER,
): Promise<ClaudeWorld> {
  const world = await makeClaudeWorld(bin, { trusted: true, apiKey: UNUSED_KEY });
  delete world.sb.env.ANTHROPIC_API_KEY;
  Object.assign(world.sb.env, env);
  return world;
}

export function claudeLimitProfile(bin: string | null): LimitProfile<ClaudeWorld> {
  const mains = (w: ClaudeWorld, prompt: string) =>
    w.stub.mainRequests().filter((r) => r.main?.prompt.startsWith(prompt));
  return {
    label: "claude",
    bin,
    async makeWorld() {
      const world = await makeClaudeSubscriberWorld(bin);
      world.stub.setHeaders(WINDOWS);
      return world;
    },
    worker: "rl",
    spawnFlags: [...SUBSCRIBER_FLAGS, "--start-timeout", "60s"],
    timeout: "60s",
    how: "in seconds, one request (no retry storm)",
    prompt: "limit one stub:limit 3600 five_hour 1",
    window: "five_hour",
    resetsIn: 3600,
    message: { limitStartsWith: "You've hit your 5-hour limit · resets " },
    withinMs: 15_000,
    async checkLimited(w, outcome) {
      expect(mains(w, "limit one").length).toBe(1);
      // The statusline claude writes after the limit (its prompt id is /rate-limit-options', a new one).
      expect(outcome.telemetry).toMatchObject({
        settled: true,
        windows: [{ name: "five_hour", usedPercent: 100 }, {}],
      });
      // claude opened /rate-limit-options (autoContinueAtUsageLimit false); the next turn's wait closes it.
    },
  };
}

const TOKENS = {
  TOKEN_A: "sk-ant-oat01-mock-account-a-0123456789",
  TOKEN_B: "sk-ant-oat01-mock-account-b-0123456789",
};

/**
 * Failover on two subscriber accounts a and b (docs/accounts.md, "Failover"): each a config dir of
 * its own and its token (TOKEN_A, TOKEN_B) as CLAUDE_CODE_OAUTH_TOKEN; the transcript is carried
 * into b's config dir and resumed with --resume. A second limit, on b, leaves none with headroom.
 */
export function claudeFailoverProfile(bin: string | null): FailoverProfile<ClaudeWorld> {
  return {
    label: "claude",
    bin,
    makeWorld: () => makeClaudeSubscriberWorld(bin, { ...SUBSCRIBER_PLAN, ...TOKENS }),
    provider: "claude",
    accounts: ["a", "b"],
    signIn: (w, account) => ({
      home: seedClaudeHome(join(w.sb.dir, `acct-${account}`), {
        apiKey: UNUSED_KEY,
        trustedDirs: [w.sb.work],
      }).configDir,
      env: { CLAUDE_CODE_OAUTH_TOKEN: `TOKEN_${account.toUpperCase()}` },
    }),
    defaultWindow: "five_hour",
    spawnFlags: Object.keys(SUBSCRIBER_PLAN).flatMap((name) => ["--env", name]),
    firstAnswer: "first answer, on a",
    meets: "a limit",
    resumed: "resumed, with the conversation's earlier messages on b's token",
    limited: { prompt: "limit two", reply: limit(3600, "five_hour") },
    window: "five_hour",
    byAuthorization: {
      a: TOKENS.TOKEN_A,
      b: TOKENS.TOKEN_B,
      requests: { a: { exactly: 2 }, b: { exactly: 1 } },
      // claude 2.1.332 sends a one-token "quota" request at each start (a's, then b's): not the turn's.
      ignore: (r) => r.main?.prompt === "quota",
    },
    resendsLimitedPrompt: false,
    // b's own reset (30 min) comes before a's (an hour from its limit) and the default's (tomorrow).
    noHeadroom: {
      prompt: "limit three",
      reply: limit(1800, "five_hour"),
      window: "five_hour",
      resetsInMs: [1_500_000, 1_900_000],
    },
  };
}

/** A subscriber's token per account (what claude sends the stub as its bearer token). */
const ACCOUNT_TOKENS = {
  default: "sk-ant-oat01-default-0123456789",
  a: "sk-ant-oat01-account-a-0123456789",
  b: "sk-ant-oat01-account-b-0123456789",
};
/** A subscriber's answer headers with the five-hour window used `fiveHour` (a fraction). */
const accountWindows = (fiveHour: string) => ({
  "anthropic-ratelimit-unified-status": "allowed",
  "anthropic-ratelimit-unified-reset": "{now+3600}",
  "anthropic-ratelimit-unified-representative-claim": "five_hour",
  "anthropic-ratelimit-unified-5h-utilization": fiveHour,
  "anthropic-ratelimit-unified-5h-reset": "{now+3600}",
  "anthropic-ratelimit-unified-7d-utilization": "0.10",
  "anthropic-ratelimit-unified-7d-reset": "{now+200000}",
});

/**
 * Two subscriber accounts a and b and the default sign-in (issue 24): each account a config dir of
 * its own and its token by name (ACCOUNT_A_TOKEN as CLAUDE_CODE_OAUTH_TOKEN); the default sign-in
 * gets the subscriber's names from [claude]; the stub tells them apart by the token claude sends.
 */
export function claudeAccountsProfile(bin: string | null): AccountsProfile<ClaudeWorld> {
  return {
    label: "claude",
    bin,
    makeWorld: () =>
      makeClaudeSubscriberWorld(bin, {
        ...SUBSCRIBER_PLAN,
        CLAUDE_CODE_OAUTH_TOKEN: ACCOUNT_TOKENS.default,
        ACCOUNT_A_TOKEN: ACCOUNT_TOKENS.a,
        ACCOUNT_B_TOKEN: ACCOUNT_TOKENS.b,
      }),
    provider: "claude",
    signIn: (w, account) =>
      account === "default"
        ? { home: w.home.configDir }
        : {
            home: seedClaudeHome(join(w.sb.dir, `account-${account}`), {
              apiKey: UNUSED_KEY,
              trustedDirs: [w.sb.work],
            }).configDir,
            // An account drops the default's token for its own.
            env: { CLAUDE_CODE_OAUTH_TOKEN: `ACCOUNT_${account.toUpperCase()}_TOKEN` },
          },
    defaultNames: ["CLAUDE_CODE_OAUTH_TOKEN", ...Object.keys(SUBSCRIBER_PLAN)],
    credentials: ACCOUNT_TOKENS,
    credentialHeaders: ["authorization", "x-api-key"],
    window: "five_hour",
    windows: (usedPercent) => accountWindows((usedPercent / 100).toFixed(2)),
    limited: { reply: limit(3600, "five_hour"), headers: accountWindows("1.0") },
    spawnFlags: ["--start-timeout", "60s"],
    carries: "that account's token",
    seen: "as its workers saw them",
    transcripts: "projects",
  };
}

/**
 * claude writes into its config dir (telemetry, backups) while it exits on the SIGHUP of a killed
 * tmux server, which can be after a first rm: remove until the folder stays gone for 500 ms.
 */
export async function removeSettled(dir: string): Promise<void> {
  const until = Date.now() + 10_000;
  let goneSince: number | null = null;
  while (Date.now() < until) {
    if (existsSync(dir)) {
      goneSince = null;
      await rm(dir, { recursive: true, force: true });
    } else {
      goneSince ??= Date.now();
      if (Date.now() - goneSince >= 500) return;
    }
    await Bun.sleep(50);
  }
}

export function claudeFleetProfile(bin: string | null): FleetProfile<ClaudeWorld> {
  return {
    label: "claude",
    bin,
    makeWorld: () => makeClaudeWorld(bin, { noRetries: true }),
    spawnFlags: CLAUDE_KEY_FLAGS,
    prefix: "f",
    timeout: "40s",
    rulesFlags: ["--permission-mode", "manual"],
    allowedPrompt: "stub:bash touch policy.txt",
    logsShowPolicy: true,
    approval: {
      prompt: "stub:bash echo approved > approved.txt",
      made: { file: "approved.txt", content: "approved\n" },
      answered: { option: { number: 1, label: "Yes" }, keys: ["1"] },
      // Notification permission_prompt, 1-7 s after the PermissionRequest (2.1.332).
      reannounced: '"notification_type":"permission_prompt"',
    },
    deny: {
      prompt: "stub:bash echo no > denied.txt",
      absent: "denied.txt",
      byInputId: true,
      answered: { option: { label: "No" } },
    },
    // The worktree is a folder claude has never trusted: spawn answers its trust dialog.
    worktree: { flags: ["--allow", "Bash(touch:*)"], spawned: { dialogsAnswered: ["trust"] } },
  };
}
