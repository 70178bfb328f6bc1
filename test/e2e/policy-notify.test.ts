import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type CliJson, sendAndWait, spawnOk } from "../helpers/cli.ts";
import { createSandbox, eventually, type Sandbox } from "../helpers/sandbox.ts";

// Workers on real tmux take seconds a test; bun's default is 5 s.
setDefaultTimeout(90_000);

/**
 * dist/umbel on each fake: spawn --allow/--deny answered by the worker's own hooks (a policy-allowed
 * call never reaches the caller; anything else still asks: fail closed), decisions in logs and
 * status; --notify fired from the hooks on stop, input and dead, with no umbel process alive.
 */

let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox({ env: { GEMINI_API_KEY: "fake-key" } });
  mkdirSync(join(sb.dir, "home", ".gemini"), { mode: 0o700 });
});
afterAll(async () => {
  await sb.dispose();
});

const json = (text: string) => JSON.parse(text) as CliJson;
/**
 * The notify command: one line per call, `<UMBEL_WORKER> <UMBEL_OUTCOME> <stdin JSON>`, in one write
 * (the commands run in the background, and may overlap: written piecemeal, as it was, a read saw a
 * line without its JSON yet, and JSON.parse threw out of `eventually`).
 */
const notifyCmd = (file: string) =>
  `line="$UMBEL_WORKER $UMBEL_OUTCOME $(cat)"; printf '%s\\n' "$line" >> '${file}'`;
/** The lines written so far (a line still being written, without its newline, is not one yet). */
const notified = (file: string) =>
  existsSync(file)
    ? readFileSync(file, "utf8")
        .split("\n")
        .slice(0, -1)
        .map((line) => {
          const [worker, outcome, ...rest] = line.split(" ");
          return { worker, outcome, json: JSON.parse(rest.join(" ")) as Record<string, unknown> };
        })
    : [];

describe.each([
  ["claude", ["--permission-mode", "manual"], "Bash(git status:*)", "Bash(rm:*)", "git status", "x.txt"],
  ["codex", [], "Bash(git status:*)", "Bash(rm:*)", "git status", "fake-approved.txt"],
  ["gemini", [], "run_shell_command(git status)", "run_shell_command(rm)", "git status", "fake-approved.txt"],
] as const)("policy and notify on %s", (provider, flags, allow, deny, allowed, asked) => {
  const name = `pol-${provider}`;
  const file = () => join(sb.dir, `${name}.notify`);
  beforeAll(async () => {
    await spawnOk(sb, name, [
      "--provider",
      provider,
      ...flags,
      "--allow",
      allow,
      "--deny",
      deny,
      "--notify",
      notifyCmd(file()),
    ]);
  });

  test("an allowed call never reaches the caller; the turn stops; logs and status show the decision", async () => {
    const t = await sendAndWait(sb, name, `fake:permission ${allowed}`, ["--timeout", "20s"]);
    expect(t.outcome.reason).toBe("stop");
    expect((await sb.umbel(["read", name])).stdout).toContain("FAKE-");
    const status = json((await sb.umbel(["status", name, "--json"])).stdout);
    expect(status.policy).toMatchObject({ allow: [allow], deny: [deny], denied: 0 });
    if (provider !== "gemini") {
      expect(status.policy).toMatchObject({ allowed: 1 });
      expect((await sb.umbel(["logs", name])).stdout).toContain(`[umbel policy: allow ${allow}]`);
    }
    const stops = await eventually(() => notified(file()).filter((n) => n.outcome === "stop").length >= 1);
    expect(stops).toBe(true);
    const [first] = notified(file());
    expect(first).toMatchObject({
      worker: name,
      outcome: "stop",
      json: { name, reason: "stop", exitCode: 0 },
    });
  });

  test("a denied call is refused by the hook: the turn goes on to its stop; counted", async () => {
    const t = await sendAndWait(sb, name, "fake:permission rm -rf build", ["--timeout", "20s"]);
    expect(t.outcome.reason).toBe("stop");
    expect((await sb.umbel(["read", name])).stdout).toContain("FAKE-DENIED");
    expect(json((await sb.umbel(["status", name, "--json"])).stdout).policy).toMatchObject({ denied: 1 });
    expect((await sb.umbel(["logs", name])).stdout).toContain(`[umbel policy: deny ${deny}]`);
  });

  test("a call of an allowed command with an option that writes a file still asks (gemini: umbel's ask beats its allowlist)", async () => {
    const t = await sendAndWait(sb, name, `fake:permission ${allowed} --output=out.patch`, [
      "--timeout",
      "20s",
    ]);
    expect(t.outcome).toMatchObject({ reason: "input", exitCode: 126 });
    expect((await sb.umbel(["answer", name, "deny"])).code).toBe(0);
    await sb.umbel(["wait", name, "--after", String(t.baseline), "--timeout", "20s"]);
    expect(existsSync(join(sb.work, "out.patch"))).toBe(false);
  });

  test("anything the rules do not name still asks: input (126), notified as input", async () => {
    const t = await sendAndWait(sb, name, "fake:permission touch other.txt", ["--timeout", "20s"]);
    expect(t.outcome).toMatchObject({ reason: "input", exitCode: 126 });
    await eventually(() => notified(file()).some((n) => n.outcome === "input"));
    expect(notified(file()).find((n) => n.outcome === "input")?.json).toMatchObject({
      name,
      reason: "input",
      exitCode: 126,
    });
    expect((await sb.umbel(["answer", name, "deny"])).code).toBe(0);
    await sb.umbel(["wait", name, "--after", String(t.baseline), "--timeout", "20s"]);
    expect(existsSync(join(sb.work, asked))).toBe(false);
  });
});

describe("notify when the CLI dies", () => {
  test("the wrapper notifies dead (125) with the exit record, from no umbel process", async () => {
    const file = join(sb.dir, "dies.notify");
    await spawnOk(sb, "dies", ["--notify", notifyCmd(file)]);
    const t = await sendAndWait(sb, "dies", "fake:die 3", ["--timeout", "20s"]);
    expect(t.outcome.reason).toBe("dead");
    await eventually(() => notified(file).some((n) => n.outcome === "dead"));
    expect(notified(file).find((n) => n.outcome === "dead")?.json).toMatchObject({
      name: "dies",
      reason: "dead",
      exitCode: 125,
      payload: { exitCode: 3 },
    });
  });

  test("--allow on a bad pattern, or --base without --worktree, is a usage error (2); nothing is made", async () => {
    const bad = await sb.umbel(["spawn", "bad", "--allow", "Bash(oops"]);
    expect(bad.stderr).toContain('--allow "Bash(oops"');
    expect(bad.code).toBe(2);
    const base = await sb.umbel(["spawn", "bad", "--base", "main"]);
    expect(base.stderr).toContain("--base names the commit a --worktree starts from");
    expect(base.code).toBe(2);
    expect(existsSync(join(sb.root, "sessions", "bad"))).toBe(false);
  });
});
