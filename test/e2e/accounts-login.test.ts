import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSandbox, REPO, type Sandbox } from "../helpers/sandbox.ts";

// dist/umbel as a subprocess a test (declared here: see docs/architecture.md, "Tests").
setDefaultTimeout(30_000);

/**
 * `umbel accounts login NAME` through dist/umbel, each CLI's binary a fake that records its argv and
 * environment: the sign-in command, the account's home variable, the home made 0700, the CLI's exit
 * status as umbel's, and the usage errors (2) for a name that is no account.
 */

const FAKE = join(REPO, "test", "fixtures", "fake-sign-in.sh");
const BINS = {
  UMBEL_CLAUDE_BIN: FAKE,
  UMBEL_CODEX_BIN: FAKE,
  UMBEL_GEMINI_BIN: FAKE,
  UMBEL_OPENCODE_BIN: FAKE,
};
const TOKEN = `login-canary-${crypto.randomUUID()}`;
let sb: Sandbox;
let log: string;
const homeOf = (name: string) => join(sb.dir, "homes", name);

beforeAll(async () => {
  sb = await createSandbox({
    env: {
      ...BINS,
      // The default sign-in's token in umbel's environment: it would sign claude in by itself.
      CLAUDE_CODE_OAUTH_TOKEN: TOKEN,
      CODEX_HOME: "/nonexistent/default-codex",
    },
  });
  log = join(sb.dir, "sign-in.log");
  mkdirSync(sb.root, { recursive: true, mode: 0o700 });
  const homed = [
    ["work", "claude"],
    ["cx", "codex"],
    ["gem", "gemini"],
    ["oc", "opencode"],
  ];
  const tables = homed.map(
    ([name, provider]) => `[accounts.${name}]\nprovider = "${provider}"\nhome = "${homeOf(name ?? "")}"\n`,
  );
  tables.push('[accounts.tokens]\nprovider = "claude"\nenv = { CLAUDE_CODE_OAUTH_TOKEN = "WORK" }\n');
  writeFileSync(join(sb.root, "config.toml"), tables.join("\n"));
});
afterAll(async () => {
  await sb.dispose();
});

/** The fake's record of its one run: argv and its environment. */
function readRun(): { argv: string; env: Record<string, string> } {
  const lines = readFileSync(log, "utf8").split("\n");
  rmSync(log);
  const env: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const eq = line.indexOf("=");
    if (eq > 0) env[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return { argv: (lines[0] ?? "").replace(/^argv: /, ""), env };
}

describe("umbel accounts login NAME", () => {
  test.each([
    ["work", "auth login", "CLAUDE_CONFIG_DIR"],
    // The account's own home: the managed codex-home-cx of its workers links this home's auth.json.
    ["cx", "login", "CODEX_HOME"],
    // gemini has no login command: its auth dialog opens on the first start.
    ["gem", "", "GEMINI_CLI_HOME"],
    ["oc", "auth login", "XDG_DATA_HOME"],
  ])("%s: runs `%s` with %s the account's home, made 0700", async (name, argv, variable) => {
    expect(existsSync(homeOf(name))).toBe(false);
    const r = await sb.umbel(["accounts", "login", name], { env: { FAKE_SIGN_IN_LOG: log } });
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const run = readRun();
    expect(run.argv).toBe(argv);
    expect(run.env[variable]).toBe(homeOf(name));
    expect(statSync(homeOf(name)).mode & 0o777).toBe(0o700);
    // claude: the default's token in umbel's environment would sign it in by itself; never passed.
    if (name === "work") expect(run.env.CLAUDE_CODE_OAUTH_TOKEN).toBeUndefined();
  });

  test("the CLI's exit status is umbel's, and --json prints nothing after the terminal's sign-in", async () => {
    const r = await sb.umbel(["accounts", "login", "work", "--json"], {
      env: { FAKE_SIGN_IN_LOG: log, FAKE_SIGN_IN_EXIT: "7" },
    });
    expect(r.stdout).toBe("");
    expect(r.code).toBe(7);
    expect(readRun().argv).toBe("auth login");
    // A sign-in ended by a signal: 128+N, as a shell reports it (SIGTERM is 15).
    const killed = await sb.umbel(["accounts", "login", "work"], {
      env: { FAKE_SIGN_IN_LOG: log, FAKE_SIGN_IN_SIGNAL: "TERM" },
    });
    expect(killed.code).toBe(143);
    readRun();
  });

  test("the CLI's own flags after -- are passed on to its sign-in", async () => {
    const r = await sb.umbel(["accounts", "login", "cx", "--", "--device-auth"], {
      env: { FAKE_SIGN_IN_LOG: log },
    });
    expect(r.code).toBe(0);
    expect(readRun().argv).toBe("login --device-auth");
  });

  test.each([
    [["accounts", "login"], "needs an account name (declared: work, cx, gem, oc, tokens)"],
    [["accounts", "login", "wrok"], 'no account "wrok"'],
    [["accounts", "login", "wrok"], "did you mean work?"],
    [["accounts", "login", "auto"], "placement keyword"],
    [["accounts", "login", "tokens"], "has no home"],
    [["accounts", "logn", "work"], "did you mean login?"],
  ])("%j is a usage error (%s), and no CLI runs", async (argv, words) => {
    const r = await sb.umbel(argv, { env: { FAKE_SIGN_IN_LOG: log } });
    expect(r.stderr).toContain(words);
    expect(r.code).toBe(2);
    expect(existsSync(log)).toBe(false);
  });

  test("listing is unchanged: umbel accounts --json", async () => {
    const r = await sb.umbel(["accounts", "--json"]);
    const rows = JSON.parse(r.stdout) as { name: string | null }[];
    expect(rows.map((a) => a.name)).toContain("work");
    expect(r.code).toBe(0);
  });
});
