import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import {
  copyFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { createTmux, deriveSocket } from "../../src/adapters/tmux.ts";
import { sendAndWait, spawnOk } from "../helpers/cli.ts";
import { createSandbox, type Sandbox } from "../helpers/sandbox.ts";

// Workers on real tmux take seconds a test (declared here: see docs/architecture.md, "Tests").
setDefaultTimeout(60_000);

/** spawn --account through dist/umbel with the fake CLIs: the account's home and token reach the worker, and the token nothing else. */

const SECRET = `acct-canary-${crypto.randomUUID()}`;
const GEMINI_SECRET = `acct-gemini-canary-${crypto.randomUUID()}`;
const OPENCODE_SECRET = `acct-opencode-canary-${crypto.randomUUID()}`;
let sb: Sandbox;
let claudeHome: string;
let codexHome: string;
let geminiHome: string;
let opencodeHome: string;

beforeAll(async () => {
  sb = await createSandbox({
    env: { WORK_CLAUDE_TOKEN: SECRET, WORK_GEMINI_TOKEN: GEMINI_SECRET, WORK_OPENCODE_KEY: OPENCODE_SECRET },
  });
  claudeHome = join(sb.dir, "claude-work");
  codexHome = join(sb.dir, "codex-acct");
  geminiHome = join(sb.dir, "gemini-acct");
  opencodeHome = join(sb.dir, "opencode-acct");
  mkdirSync(claudeHome);
  mkdirSync(codexHome);
  mkdirSync(opencodeHome);
  // A Google sign-in as gemini 0.61.0 keeps it: the selected auth type in settings.json, the tokens
  // beside it. The sandbox's own HOME has neither, so the default would sit on the auth dialog.
  mkdirSync(join(geminiHome, ".gemini"), { recursive: true });
  writeFileSync(
    join(geminiHome, ".gemini", "settings.json"),
    '{"security":{"auth":{"selectedType":"oauth-personal"}}}\n',
  );
  writeFileSync(join(geminiHome, ".gemini", "oauth_creds.json"), '{"access_token":"fake"}\n');
  // The fake claude keeps its trusted folders in its config dir, as the real one keeps .claude.json.
  copyFileSync(join(sb.cfg, "fake-trusted"), join(claudeHome, "fake-trusted"));
  writeFileSync(join(codexHome, "auth.json"), '{"auth_mode":"chatgpt"}\n');
  mkdirSync(sb.root, { recursive: true, mode: 0o700 });
  writeFileSync(
    join(sb.root, "config.toml"),
    `[accounts.work]
provider = "claude"
home = "${claudeHome}"
env = { CLAUDE_CODE_OAUTH_TOKEN = "WORK_CLAUDE_TOKEN" }

[accounts.cx]
provider = "codex"
home = "${codexHome}"

[accounts.gem]
provider = "gemini"
home = "${geminiHome}"
env = { GOOGLE_CLOUD_ACCESS_TOKEN = "WORK_GEMINI_TOKEN" }

[accounts.oc]
provider = "opencode"
home = "${opencodeHome}"
env = { OPENCODE_API_KEY = "WORK_OPENCODE_KEY" }
`,
  );
});
afterAll(async () => {
  await sb.dispose();
});

function allFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? allFiles(path) : [path];
  });
}

/**
 * spawn through dist/umbel with `ps` sampled all along (and UMBEL_TRACE on): every argv seen that
 * held `secret`, for the caller to find empty.
 */
async function spawnSampled(secret: string, name: string, flags: readonly string[], trace: string) {
  let sampling = true;
  const seen: string[] = [];
  const sampler = (async () => {
    while (sampling) {
      const args = Bun.spawnSync(["ps", "-eo", "args="]).stdout.toString();
      if (args.includes(secret)) seen.push(args);
      await Bun.sleep(5);
    }
  })();
  const spawned = await sb.umbel(["spawn", name, ...flags, "--json"], { env: { UMBEL_TRACE: trace } });
  sampling = false;
  await sampler;
  return { spawned, seen };
}

/**
 * Where a secret must never be once a worker started (before any turn: only the model's answer that
 * printed it may hold it later): the tmux server's and session's environment, the trace, the state root.
 */
async function expectNowhere(secret: string, name: string, trace: string) {
  const tmux = createTmux({ socket: deriveSocket(sb.root, undefined), hostEnv: sb.env });
  expect(await tmux.showEnvironment()).not.toContain(secret);
  expect(await tmux.showEnvironment(name)).not.toContain(secret);
  const traced = readFileSync(trace, "utf8");
  expect(traced).toContain("tmux");
  expect(traced).not.toContain(secret);
  expect(allFiles(sb.root).filter((f) => readFileSync(f, "utf8").includes(secret))).toEqual([]);
}

const reply = async (name: string, prompt: string) => {
  await sendAndWait(sb, name, prompt);
  return (await sb.umbel(["read", name])).stdout;
};

describe("spawn --account", () => {
  test("claude: CLAUDE_CONFIG_DIR is the account's home and its token arrives by name, in no argv, tmux environment, state file or log", async () => {
    let sampling = true;
    const seen: string[] = [];
    const sampler = (async () => {
      while (sampling) {
        const args = Bun.spawnSync(["ps", "-eo", "args="]).stdout.toString();
        if (args.includes(SECRET)) seen.push(args);
        await Bun.sleep(5);
      }
    })();
    const trace = join(sb.dir, "trace.log");
    const spawned = await sb.umbel(["spawn", "w1", "--account", "work", "--json"], {
      env: { UMBEL_TRACE: trace },
    });
    sampling = false;
    await sampler;
    expect(spawned.stderr).not.toContain(SECRET);
    expect(spawned.code).toBe(0);
    expect(seen).toEqual([]);
    expect(await reply("w1", "fake:env CLAUDE_CONFIG_DIR")).toBe(`ENV CLAUDE_CONFIG_DIR=${claudeHome}\n`);
    expect(await reply("w1", "fake:env CLAUDE_CODE_OAUTH_TOKEN")).toBe(
      `ENV CLAUDE_CODE_OAUTH_TOKEN=${SECRET}\n`,
    );

    const status = JSON.parse((await sb.umbel(["status", "w1", "--json"])).stdout) as Record<string, unknown>;
    expect(status.account).toBe("work");
    expect((await sb.umbel(["ls"])).stdout).toMatch(/ACCOUNT[\s\S]*w1\s+\S+\s+claude\s+work/);
    const accounts = JSON.parse((await sb.umbel(["accounts", "--json"])).stdout) as {
      name: string | null;
      workers: string[];
    }[];
    expect(accounts.find((a) => a.name === "work")?.workers).toEqual(["w1"]);

    const tmux = createTmux({ socket: deriveSocket(sb.root, undefined), hostEnv: sb.env });
    expect(await tmux.showEnvironment()).not.toContain(SECRET);
    expect(await tmux.showEnvironment("w1")).not.toContain(SECRET);
    const traced = readFileSync(trace, "utf8");
    expect(traced).toContain("tmux");
    expect(traced).not.toContain(SECRET);
    // hooks.jsonl's Stop payload quotes the model's answer (which printed it): the only place it may be.
    const leaks = allFiles(sb.root).filter(
      (f) => readFileSync(f, "utf8").includes(SECRET) && !f.endsWith("hooks.jsonl"),
    );
    expect(leaks).toEqual([]);
    const hookLines = readFileSync(join(sb.root, "sessions", "w1", "events", "hooks.jsonl"), "utf8")
      .split("\n")
      .filter((l) => l.includes(SECRET));
    expect(hookLines.every((l) => l.includes('"hook_event_name":"Stop"'))).toBe(true);
  });

  test("codex: a managed home of the account's own, its auth.json linked from the account's home", async () => {
    const spawned = await spawnOk(sb, "c1", ["--provider", "codex", "--account", "cx"]);
    expect(spawned).toMatchObject({ name: "c1", provider: "codex", state: "ready" });
    const managed = join(realpathSync(sb.root), "codex-home-cx");
    expect(readlinkSync(join(managed, "auth.json"))).toBe(join(codexHome, "auth.json"));
    expect(await reply("c1", "fake:env CODEX_HOME")).toBe(`ENV CODEX_HOME=${managed}\n`);
    const status = JSON.parse((await sb.umbel(["status", "c1", "--json"])).stdout) as Record<string, unknown>;
    expect(status.account).toBe("cx");
  });

  test("gemini: the worker's own GEMINI_CLI_HOME links the account's sign-in; its token arrives by name, in no argv, tmux environment, state file or log", async () => {
    const trace = join(sb.dir, "trace-gemini.log");
    const { spawned, seen } = await spawnSampled(
      GEMINI_SECRET,
      "g1",
      ["--provider", "gemini", "--account", "gem"],
      trace,
    );
    expect(spawned.stderr).not.toContain(GEMINI_SECRET);
    // Signed in by the account's home: without it this worker would sit on gemini's auth dialog (126).
    expect(spawned.code).toBe(0);
    expect(seen).toEqual([]);
    await expectNowhere(GEMINI_SECRET, "g1", trace);
    const workerHome = join(realpathSync(sb.root), "sessions", "g1", "gemini");
    expect(readlinkSync(join(workerHome, ".gemini", "oauth_creds.json"))).toBe(
      join(geminiHome, ".gemini", "oauth_creds.json"),
    );
    expect(await reply("g1", "fake:env GEMINI_CLI_HOME")).toBe(`ENV GEMINI_CLI_HOME=${workerHome}\n`);
    expect(await reply("g1", "fake:env GOOGLE_CLOUD_ACCESS_TOKEN")).toBe(
      `ENV GOOGLE_CLOUD_ACCESS_TOKEN=${GEMINI_SECRET}\n`,
    );
    const status = JSON.parse((await sb.umbel(["status", "g1", "--json"])).stdout) as Record<string, unknown>;
    expect(status.account).toBe("gem");
    // The default sign-in (the sandbox's HOME, no .gemini) is not signed in: the account made the difference.
    const unsigned = await sb.umbel(["spawn", "g2", "--provider", "gemini"]);
    expect(unsigned.stderr).toContain("sign");
    expect(unsigned.code).toBe(126);
  });

  test("opencode: XDG_DATA_HOME is the account's home (its sessions database lands there); its key arrives by name, in no argv, tmux environment, state file or log", async () => {
    const trace = join(sb.dir, "trace-opencode.log");
    const { spawned, seen } = await spawnSampled(
      OPENCODE_SECRET,
      "o1",
      ["--provider", "opencode", "--account", "oc"],
      trace,
    );
    expect(spawned.stderr).not.toContain(OPENCODE_SECRET);
    expect(spawned.code).toBe(0);
    expect(seen).toEqual([]);
    await expectNowhere(OPENCODE_SECRET, "o1", trace);
    expect(await reply("o1", "fake:env XDG_DATA_HOME")).toBe(`ENV XDG_DATA_HOME=${opencodeHome}\n`);
    expect(await reply("o1", "fake:env OPENCODE_API_KEY")).toBe(`ENV OPENCODE_API_KEY=${OPENCODE_SECRET}\n`);
    expect(readdirSync(join(opencodeHome, "opencode"))).toContain("opencode.db");
    const status = JSON.parse((await sb.umbel(["status", "o1", "--json"])).stdout) as Record<string, unknown>;
    expect(status.account).toBe("oc");
  });

  test("another provider's account and an unknown one: exit 2 before anything is made", async () => {
    for (const [flags, words] of [
      [["--account", "cx"], "is a codex account"],
      [["--account", "wrok"], "did you mean work?"],
    ] as const) {
      const r = await sb.umbel(["spawn", "bad", ...flags]);
      expect(r.stderr).toContain(words);
      expect(r.code).toBe(2);
    }
    expect(readdirSync(join(sb.root, "sessions"))).not.toContain("bad");
  });
});
