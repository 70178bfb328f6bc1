import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sendAndWait, spawnOk } from "../helpers/cli.ts";
import { createSandbox, type Sandbox } from "../helpers/sandbox.ts";

// Workers on real tmux take seconds a test (declared here: see docs/architecture.md, "Tests").
setDefaultTimeout(60_000);

/**
 * spawn --account auto through dist/umbel on the fake claude and codex, two declared accounts each
 * (issue 24 §2): the records fill from status and wait, auto picks the account with headroom, skips
 * one whose limit has not reset, never an API-key one, and with none left exits 120 naming the
 * earliest reset.
 */

type Json = Record<string, unknown>;
type Row = {
  name: string | null;
  provider: string;
  workers: string[];
  windows: { windows: { name: string; usedPercent: number }[]; from: string; ageMs: number } | null;
  lastLimit: { worker: string; limit: { window: string | null; resetsAt: string | null } } | null;
};
type Placement = {
  account: string | null;
  reason: string;
  considered: { account: string | null; skipped: string | null; resetsAt: string | null }[];
};

let sb: Sandbox;

beforeAll(async () => {
  sb = await createSandbox({
    env: { CLAUDE_CODE_OAUTH_TOKEN: "tok-default", TOKEN_A: "tok-a", TOKEN_B: "tok-b", KEY_K: "sk-k" },
  });
  const homes: Record<string, string> = {};
  for (const name of ["ca", "cb", "xa", "xb"]) {
    homes[name] = join(sb.dir, `home-${name}`);
    mkdirSync(homes[name]);
  }
  // The fake claude keeps its trusted folders in its config dir; codex's sign-in is auth.json.
  for (const name of ["ca", "cb"])
    copyFileSync(join(sb.cfg, "fake-trusted"), join(homes[name] ?? "", "fake-trusted"));
  for (const name of ["xa", "xb"])
    writeFileSync(join(homes[name] ?? "", "auth.json"), '{"auth_mode":"chatgpt"}\n');
  mkdirSync(sb.root, { recursive: true, mode: 0o700 });
  writeFileSync(
    join(sb.root, "config.toml"),
    `[accounts.ca]
provider = "claude"
home = "${homes.ca}"
env = { CLAUDE_CODE_OAUTH_TOKEN = "TOKEN_A" }

[accounts.cb]
provider = "claude"
home = "${homes.cb}"
env = { CLAUDE_CODE_OAUTH_TOKEN = "TOKEN_B" }

[accounts.key]
provider = "claude"
env = { ANTHROPIC_API_KEY = "KEY_K" }

[accounts.xa]
provider = "codex"
home = "${homes.xa}"

[accounts.xb]
provider = "codex"
home = "${homes.xb}"
`,
  );
});
afterAll(async () => {
  await sb.dispose();
});

const accounts = async (): Promise<Row[]> =>
  JSON.parse((await sb.umbel(["accounts", "--json"])).stdout) as Row[];
const row = (rows: Row[], provider: string, name: string | null) =>
  rows.find((r) => r.provider === provider && r.name === name);
/** A worker that has shown its windows: a turn, then a status (which reads its telemetry). */
async function seen(name: string, flags: string[]): Promise<void> {
  await spawnOk(sb, name, flags);
  expect((await sendAndWait(sb, name, "fake:reply hi")).outcome.reason).toBe("stop");
  expect((await sb.umbel(["status", name, "--json"])).code).toBe(0);
}
async function auto(name: string, flags: string[] = []) {
  return sb.umbel(["spawn", name, "--account", "auto", "--json", ...flags]);
}

describe("claude: --account auto", () => {
  test("accounts shows each account's windows after a status; auto picks the one with headroom, logs says why first", async () => {
    await seen("d1", ["--env", "CLAUDE_CODE_OAUTH_TOKEN", "--env", "FAKE_CLAUDE_FIVE_HOUR_PCT=95"]);
    await seen("a1", ["--account", "ca", "--env", "FAKE_CLAUDE_FIVE_HOUR_PCT=75"]);
    await seen("b1", ["--account", "cb", "--env", "FAKE_CLAUDE_FIVE_HOUR_PCT=20"]);
    const rows = await accounts();
    expect(row(rows, "claude", "ca")?.windows).toMatchObject({
      from: "a1",
      windows: [
        { name: "five_hour", usedPercent: 75 },
        { name: "seven_day", usedPercent: 42 },
      ],
    });
    expect(row(rows, "claude", "cb")?.windows?.windows[0]?.usedPercent).toBe(20);
    expect(row(rows, "claude", null)?.windows?.from).toBe("d1");
    expect(row(rows, "claude", "key")?.windows).toBeNull();
    const text = (await sb.umbel(["accounts"])).stdout;
    expect(text.split("\n")[0]).toMatch(/WINDOWS\s+LAST LIMIT/);
    expect(text).toMatch(/\ncb\s+claude\s+subscription\s+b1\s+5h 20% ↻\d\d:\d\dZ 7d 42% ↻/);
    expect(text).not.toContain("windows: unknown");

    const r = await auto("p1");
    expect(r.code).toBe(0);
    const spawned = JSON.parse(r.stdout) as Json & { placement: Placement };
    expect(spawned.placement.account).toBe("cb");
    expect(spawned.placement.considered.find((c) => c.account === "key")?.skipped).toContain("API key");
    expect(r.stderr).toContain(`umbel: p1: placed by --account auto: ${spawned.placement.reason}`);
    const status = JSON.parse((await sb.umbel(["status", "p1", "--json"])).stdout) as Json;
    expect(status.account).toBe("cb");
    const logs = (await sb.umbel(["logs", "p1", "--json"])).stdout.trim().split("\n");
    expect(JSON.parse(logs[0] ?? "{}")).toMatchObject({
      event: "umbel:placement",
      payload: { account: "cb", summary: spawned.placement.reason },
    });
    expect((await sb.umbel(["logs", "p1"])).stdout.split("\n")[0]).toContain(spawned.placement.reason);
  });

  test("-p --account auto: placed the same way, and its turn's windows go to the picked account's record", async () => {
    // Further along than p1's reading of the same period (37%): news for the record.
    const r = await sb.umbel([
      "-p",
      "fake:reply placed",
      "--account",
      "auto",
      "--env",
      "FAKE_CLAUDE_FIVE_HOUR_PCT=50",
      "--output-format",
      "json",
    ]);
    expect(r.stderr).toContain("placed by --account auto: cb:");
    expect(JSON.parse(r.stdout)).toMatchObject({ result: "placed", is_error: false });
    expect(r.code).toBe(0);
    // The record itself: `accounts` would read its live workers' telemetry again (b1's, newer).
    const cb = JSON.parse(readFileSync(join(sb.root, "accounts", "cb.json"), "utf8")) as Json & {
      windows: { usedPercent: number }[];
    };
    expect(cb.from).toMatch(/^p-/);
    expect(cb.windows[0]).toMatchObject({ name: "five_hour", usedPercent: 50 });
    expect(statSync(join(sb.root, "accounts", "cb.json")).mode & 0o777).toBe(0o600);
  });

  test("an account whose limit has not reset is skipped: the next auto goes to the other", async () => {
    const limited = await sendAndWait(sb, "b1", "fake:limit 3600 five_hour", ["--timeout", "30s"]);
    expect(limited.code).toBe(120);
    const rows = await accounts();
    expect(row(rows, "claude", "cb")?.lastLimit).toMatchObject({
      worker: "b1",
      limit: { window: "five_hour" },
    });
    const r = await auto("p2");
    expect(r.code).toBe(0);
    const placement = (JSON.parse(r.stdout) as { placement: Placement }).placement;
    expect(placement.account).toBe("ca");
    expect(placement.considered.find((c) => c.account === "cb")?.skipped).toContain("five_hour");
  });

  test("no headroom anywhere: exit 120 naming the earliest reset, nothing made", async () => {
    expect((await sendAndWait(sb, "a1", "fake:limit 1800 five_hour", ["--timeout", "30s"])).code).toBe(120);
    expect((await sendAndWait(sb, "d1", "fake:limit 5400 five_hour", ["--timeout", "30s"])).code).toBe(120);
    const rows = await accounts();
    const earliest = row(rows, "claude", "ca")?.lastLimit?.limit.resetsAt ?? "";
    const r = await auto("p3");
    expect(r.stderr).toContain(`no claude account has headroom; the earliest reset is ${earliest}`);
    expect(JSON.parse(r.stdout)).toMatchObject({
      error: { code: "no-headroom", data: { earliestReset: earliest } },
    });
    expect(r.code).toBe(120);
    expect(readdirSync(join(sb.root, "sessions"))).not.toContain("p3");
    const p = await sb.umbel(["-p", "fake:reply no", "--account", "auto"]);
    expect(p.stderr).toContain(`the earliest reset is ${earliest}`);
    expect(p.code).toBe(120);
    // A workflow worker's account: auto is placed at its spawn, the same way.
    writeFileSync(
      join(sb.work, "auto.yaml"),
      "workers: { w: { account: auto } }\nsteps:\n  - { id: s, run: w, prompt: 'fake:reply wf' }\n",
    );
    const run = await sb.umbel(["run", "auto.yaml"]);
    expect(run.stderr).toContain(`no claude account has headroom; the earliest reset is ${earliest}`);
    expect(run.code).toBe(120);
  });
});

describe("codex: --account auto", () => {
  test("the limited account is skipped; with the default busier, the other account is picked", async () => {
    await spawnOk(sb, "xd", ["--provider", "codex"]);
    await spawnOk(sb, "xa1", ["--provider", "codex", "--account", "xa"]);
    const limited = await sendAndWait(sb, "xa1", "fake:limit 3600", ["--timeout", "30s"]);
    expect(limited.code).toBe(120);
    const rows = await accounts();
    expect(row(rows, "codex", "xa")?.windows?.windows[0]).toMatchObject({
      name: "primary",
      usedPercent: 100,
    });
    expect(row(rows, "codex", "xa")?.lastLimit?.worker).toBe("xa1");
    const r = await auto("xp", ["--provider", "codex"]);
    expect(r.code).toBe(0);
    const placement = (JSON.parse(r.stdout) as { placement: Placement }).placement;
    expect(placement.account).toBe("xb");
    expect(placement.considered.find((c) => c.account === null)).toMatchObject({ skipped: null });
  });
});
