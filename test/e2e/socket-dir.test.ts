import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createTmux, deriveSocket } from "../../src/adapters/tmux.ts";
import { createSandbox, eventually, isRunning, type Sandbox } from "../helpers/sandbox.ts";

setDefaultTimeout(60_000);

/**
 * Every path where a worker itself reaches its tmux server or runs umbel again, with TMUX_TMPDIR set
 * and unset (issue 22 item 10: workers did not get it, so with it set the retire timer's kill-session
 * and the hook's queue drain looked in the default socket folder; the spare's directory went and its
 * TUI ran on, invisible).
 */
describe.each([
  ["set", true],
  ["unset", false],
])("TMUX_TMPDIR %s", (_label, tmuxTmpdir) => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await createSandbox({ tmuxTmpdir });
    expect(sb.env.TMUX_TMPDIR !== undefined).toBe(tmuxTmpdir);
  });
  afterAll(async () => {
    await sb.dispose();
  });
  const tmux = () => createTmux({ socket: deriveSocket(sb.root, undefined), hostEnv: sb.env, root: sb.root });
  const pidOf = async (name: string) =>
    (JSON.parse((await sb.umbel(["status", name, "--json"])).stdout) as { pid: number }).pid;

  test("an idle spare retires after its TTL: its tmux session and its CLI go with its directory", async () => {
    const r = await sb.umbel(["pool", "warm", "1", "--ttl", "1s", "--json"]);
    const [name = ""] = (JSON.parse(r.stdout) as { made: string[] }).made;
    const pid = await pidOf(name);
    expect(isRunning(pid)).toBe(true);
    await eventually(
      () => !existsSync(join(sb.root, "sessions", name)),
      15_000,
      "the spare's directory to go",
    );
    await eventually(async () => !(await tmux().hasSession(name)), 5000, "the spare's tmux session to go");
    await eventually(() => !isRunning(pid), 5000, "the spare's CLI to end");
  });

  test("a claim's detached refill starts its spare on the same tmux server", async () => {
    // -p claims only a spare warmed for its own permission semantics (docs/cli-reference.md, "Permissions").
    const warm = await sb.umbel(["pool", "warm", "1", "--non-interactive", "--json"]);
    const [warmed = ""] = (JSON.parse(warm.stdout) as { made: string[] }).made;
    const r = await sb.umbel(["-p", "fake:reply claimed"], { env: { UMBEL_TRACE: "1" } });
    expect(r.stdout).toBe("claimed\n");
    expect(r.stderr).toContain(`pool: claimed ${warmed}`);
    const spare = await eventually(
      async () => {
        const list = JSON.parse((await sb.umbel(["pool", "ls", "--json"])).stdout) as {
          spares: { name: string; state: string }[];
        };
        return list.spares.find((s) => s.state === "ready" && s.name !== warmed);
      },
      20_000,
      "the refill's spare",
    );
    expect(await tmux().hasSession(spare.name)).toBe(true);
    expect((await sb.umbel(["pool", "drain"])).code).toBe(0);
  });

  test("the end-of-turn hook sends a queued prompt", async () => {
    expect((await sb.umbel(["spawn", "q"])).code).toBe(0);
    expect((await sb.umbel(["send", "q", "fake:slow 800"])).code).toBe(0);
    expect((await sb.umbel(["send", "q", "fake:reply drained", "--queue"])).code).toBe(0);
    const log = join(sb.root, "sessions", "q", "events", "hooks.jsonl");
    const prompts = () =>
      readFileSync(log, "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((e) => e.hook_event_name === "UserPromptSubmit").length;
    // Nothing but the worker's own hook drains here: no verb that would drain it runs meanwhile.
    await eventually(() => prompts() === 2, 15_000, "the hook to send the queued prompt");
    expect((await sb.umbel(["kill", "q", "--purge"])).code).toBe(0);
  });
});
