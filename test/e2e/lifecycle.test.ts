import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createHash } from "node:crypto";
import {
  existsSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { sendAndWait, spawnOk } from "../helpers/cli.ts";
import { createSandbox, eventually, type Sandbox } from "../helpers/sandbox.ts";

// Workers on real tmux take seconds a test; bun's default is 5 s (declared here: a preload's
// setDefaultTimeout reaches only the first file of a run, oven-sh/bun#43787).
setDefaultTimeout(60_000);

/** dist/umbel driving the fake claude through every verb and every wait outcome, on real tmux. */

const sha12 = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 12);
const json = (text: string) =>
  JSON.parse(text) as Record<string, unknown> & { evidence: Record<string, unknown> };

let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox();
});
afterAll(async () => {
  await sb.dispose();
});

const spawn = (name: string, ...flags: string[]) => spawnOk(sb, name, [...flags]);
const turn = (name: string, prompt: string, waitFlags: string[] = []) =>
  sendAndWait(sb, name, prompt, waitFlags);

describe("a claude worker's life", () => {
  test("spawn → send → wait (stop) → read, with the answer from the transcript", async () => {
    const spawned = await spawn("life");
    expect(spawned).toMatchObject({ name: "life", provider: "claude", state: "ready", cwd: sb.work });
    expect((await sb.umbel(["status", "life", "--json"])).stdout).toContain('"state":"idle"');

    const sent = await sb.umbel(["send", "life", "hello there"]);
    expect(sent.code).toBe(0);
    expect(sent.stdout).toMatch(/^\d+\n$/);
    const waited = await sb.umbel(["wait", "life", "--after", sent.stdout.trim()]);
    expect(waited.stdout).toStartWith("stop (exit 0)");
    expect(waited.code).toBe(0);
    const read = await sb.umbel(["read", "life"]);
    expect(read.stdout).toBe(`FAKE-REPLY len=11 sha=${sha12("hello there")} head=hello there\n`);
    expect(read.code).toBe(0);
  });

  test("multi-line and 20 KB prompts arrive byte-exact", async () => {
    const multi =
      "first line\n  second, indented\n\"quotes\" and 'single' and $HOME and `ticks`\n日本語 🎉 end";
    const big = Array.from({ length: 400 }, (_, i) => `line ${i}: ${"x".repeat(44)}`)
      .join("\n")
      .slice(0, 20_000);
    for (const prompt of [multi, big]) {
      const { outcome } = await turn("life", prompt);
      expect(outcome.reason).toBe("stop");
      const read = await sb.umbel(["read", "life"]);
      expect(read.stdout).toStartWith(`FAKE-REPLY len=${[...prompt].length} sha=${sha12(prompt)} `);
    }
  });

  test("prompts starting with / and ! are text, not commands", async () => {
    // What claude receives: `/…` padded with newlines until the paste folds (a leading space does
    // not hide a known command: " /exit" quits), `!…` after a space (shell mode otherwise).
    for (const [prompt, delivered] of [
      ["/exit please", "/exit please\n\n\n"],
      [" /help me", " /help me\n\n\n"],
      ["/clear\nsecond line", "/clear\nsecond line\n\n"],
      ["!ls", " !ls"],
    ] as const) {
      const { outcome } = await turn("life", prompt);
      expect(outcome.reason).toBe("stop");
      expect((await sb.umbel(["read", "life"])).stdout).toContain(`sha=${sha12(delivered)}`);
    }
  });

  test("two turns: read returns the second; read --after returns either", async () => {
    const first = await turn("life", "fake:reply first answer");
    const second = await turn("life", "fake:reply second answer");
    expect((await sb.umbel(["read", "life"])).stdout).toBe("second answer\n");
    expect((await sb.umbel(["read", "life", "--after", String(first.baseline)])).stdout).toBe(
      "first answer\n",
    );
    expect((await sb.umbel(["read", "life", "--after", String(second.baseline), "--json"])).stdout).toContain(
      '"source":"hook"',
    );
  });

  test("a multi-block answer is read whole; a late transcript is waited for", async () => {
    await turn("life", "fake:multi");
    expect((await sb.umbel(["read", "life"])).stdout).toBe("Part one.\n\nPart two.\n");
    const late = await turn("life", "fake:late");
    expect(late.outcome.reason).toBe("stop");
    const read = json((await sb.umbel(["read", "life", "--json"])).stdout);
    expect(read).toMatchObject({ source: "transcript", empty: false });
    expect(String(read.text)).toStartWith("FAKE-REPLY");
  });

  test("send refuses while the worker is busy (exit 4) and wait without --after follows the last turn", async () => {
    const sent = await sb.umbel(["send", "life", "fake:slow 1500"]);
    expect(sent.code).toBe(0);
    const busy = await sb.umbel(["send", "life", "too soon"]);
    expect(busy.stderr).toContain("busy");
    expect(busy.code).toBe(4);
    expect((await sb.umbel(["status", "life", "--json"])).stdout).toContain('"state":"busy"');
    const waited = await sb.umbel(["wait", "life"]);
    expect(waited.code).toBe(0);
  });

  test("logs lists the hook events; capture shows the screen", async () => {
    const logs = await sb.umbel(["logs", "life"]);
    expect(logs.stdout).toContain("SessionStart");
    expect(logs.stdout).toContain("UserPromptSubmit");
    expect(logs.stdout).toContain("Stop");
    const lines = (await sb.umbel(["logs", "life", "--json"])).stdout.trim().split("\n");
    expect(json(lines[0] ?? "{}")).toMatchObject({ index: 0, event: "SessionStart" });
    expect((await sb.umbel(["capture", "life"])).stdout).toContain("Claude Code");
  });
});

describe("wait outcomes", () => {
  test("provider-error (122) with the error as evidence", async () => {
    await spawn("errs");
    const { outcome, code } = await turn("errs", "fake:error");
    expect(outcome).toMatchObject({ reason: "provider-error", exitCode: 122 });
    expect(outcome.evidence.error).toBe("server_error");
    expect(String(outcome.evidence.message)).toContain("API Error: 500");
    // StopFailure fires before the TUI draws the error: the screen evidence must show it anyway.
    expect(String(outcome.evidence.screen)).toContain("API Error: 500");
    expect(code).toBe(122);
    const read = json((await sb.umbel(["read", "errs", "--json"])).stdout);
    expect(read).toMatchObject({ isError: true, turn: "failure" });
  });

  test("input (126) with the prompt text; keys 1 approves and the turn ends in stop", async () => {
    await spawn("perm", "--permission-mode", "manual");
    const asked = await turn("perm", "fake:permission");
    expect(asked.outcome).toMatchObject({ reason: "input", exitCode: 126 });
    // The prompt is drawn 150 ms after its hook, with no hook after it: wait re-checks the screen
    // quickly instead of once a second (~300 ms here; ~1.2 s with the 1 s safety poll).
    expect(asked.outcome.elapsedMs as number).toBeLessThan(800);
    expect(String(asked.outcome.evidence.prompt)).toContain("echo hi > x.txt");
    expect(String(asked.outcome.evidence.screen)).toContain("Do you want to proceed?");
    expect(asked.code).toBe(126);
    expect((await sb.umbel(["status", "perm", "--json"])).stdout).toContain('"state":"needs-input"');
    expect((await sb.umbel(["keys", "perm", "1"])).code).toBe(0);
    const done = await sb.umbel(["wait", "perm", "--after", String(asked.baseline), "--json"]);
    expect(json(done.stdout).reason).toBe("stop");
    expect((await sb.umbel(["read", "perm"])).stdout).toBe("FAKE-APPROVED\n");
    expect(existsSync(join(sb.work, "x.txt"))).toBe(true);
  });

  test("timeout (124) and idle (123)", async () => {
    await spawn("hang");
    const timed = await turn("hang", "fake:hang", ["--timeout", "1s"]);
    expect(timed.outcome).toMatchObject({ reason: "timeout", exitCode: 124 });
    expect(timed.code).toBe(124);
    const idle = await sb.umbel([
      "wait",
      "hang",
      "--after",
      String(timed.baseline),
      "--idle-timeout",
      "2s",
      "--json",
    ]);
    expect(json(idle.stdout)).toMatchObject({ reason: "idle", exitCode: 123 });
    expect(idle.code).toBe(123);
    await sb.umbel(["keys", "hang", "Escape"]);
  });

  test("aborted (130) on SIGINT, the worker untouched", async () => {
    const child = Bun.spawn(
      [join(import.meta.dir, "../../dist/umbel"), "wait", "hang", "--after", "0", "--json"],
      {
        env: sb.env,
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    await Bun.sleep(0); // let it start; the assertion below polls
    await eventually(async () => (await sb.umbel(["status", "hang", "--json"])).code === 0, 5000);
    await Bun.sleep(300);
    child.kill("SIGINT");
    const out = await new Response(child.stdout).text();
    expect(json(out)).toMatchObject({ reason: "aborted", exitCode: 130 });
    expect(await child.exited).toBe(130);
    expect((await sb.umbel(["status", "hang", "--json"])).stdout).not.toContain('"state":"dead"');
  });

  test("dead (125): mid-turn exit code, and death by signal, with the last screen", async () => {
    await spawn("die");
    const died = await turn("die", "fake:die 3");
    expect(died.outcome).toMatchObject({ reason: "dead", exitCode: 125 });
    expect(died.outcome.evidence.exit).toEqual({ exitCode: 3 });
    expect(died.code).toBe(125);
    expect((await sb.umbel(["status", "die"])).stdout).toContain("dead (status 3)");

    await spawn("sig");
    const killed = await turn("sig", "fake:kill");
    expect(killed.outcome).toMatchObject({ reason: "dead", exitCode: 125 });
    expect(killed.outcome.evidence.exit).toEqual({ exitCode: 137, signal: "KILL" });
    expect(typeof killed.outcome.evidence.screen).toBe("string");
  });

  test("a worker env that names the wrapper's own variables cannot move or forge the exit record", async () => {
    const decoy = join(sb.work, "decoy");
    const r = await sb.umbel([
      "spawn",
      "clash",
      "--env",
      `events=${decoy}`,
      "--env",
      "status=0",
      "--env",
      "record=forged",
      "--env",
      "IFS=x",
    ]);
    expect(r.code).toBe(0);
    const died = await turn("clash", "fake:die 3");
    expect(died.outcome).toMatchObject({
      reason: "dead",
      exitCode: 125,
      evidence: { exit: { exitCode: 3 } },
    });
    expect(existsSync(decoy)).toBe(false);
  });

  test("a subagent turn: wait returns only after the final Stop", async () => {
    await spawn("sub");
    // Orders seen on the real claude: SubagentStop after the report turn's UserPromptSubmit, before
    // it ("early"), and logged even before the first Stop ("swapped").
    for (const prompt of ["fake:subagent", "fake:subagent early", "fake:subagent swapped"]) {
      const { outcome } = await turn("sub", prompt);
      expect(outcome.reason).toBe("stop");
      expect(outcome.evidence.message).toBe("FAKE-SUBAGENT-DONE");
      expect((await sb.umbel(["read", "sub"])).stdout).toBe("FAKE-SUBAGENT-DONE\n");
    }
  });
});

describe("kill, tombstones and prune", () => {
  test("kill keeps a tombstone; --purge and prune remove dead ones, never a live one", async () => {
    await spawn("tomb");
    await turn("tomb", "fake:reply remember me");
    const killed = await sb.umbel(["kill", "tomb"]);
    expect(killed.stdout).toBe("killed tomb\n");
    expect((await sb.umbel(["status", "tomb", "--json"])).stdout).toContain('"state":"killed"');
    expect((await sb.umbel(["read", "tomb"])).stdout).toBe("remember me\n");
    expect((await sb.umbel(["capture", "tomb", "--json"])).stdout).toContain('"source":"tombstone"');
    expect((await sb.umbel(["logs", "tomb"])).stdout).toContain("Stop");
    const send = await sb.umbel(["send", "tomb", "hi"]);
    expect(send.code).toBe(125);

    await spawn("alive");
    const pruned = json((await sb.umbel(["prune", "--json"])).stdout) as unknown as {
      removed: string[];
      kept: string[];
    };
    expect(pruned.removed).toContain("tomb");
    expect(pruned.removed).not.toContain("alive");
    expect(pruned.kept).toContain("alive");
    expect((await sb.umbel(["status", "tomb"])).code).toBe(3);
    expect((await sb.umbel(["kill", "alive", "--purge"])).stdout).toBe("purged alive\n");
    expect((await sb.umbel(["ls", "--json"])).stdout).not.toContain('"alive"');
  });
});

describe("spawn failures leave nothing behind", () => {
  test.each([
    [["spawn", "Bad_Name"], 2, "worker name"],
    [["spawn", "x", "--cwd", "/nonexistent/dir"], 2, "not a directory"],
    [["spawn", "x", "--env", "NOT_SET_ANYWHERE"], 2, "NOT_SET_ANYWHERE is not set"],
    [["spawn", "x", "--timeout", "5s"], 2, "unknown flag --timeout"],
    [["wait", "nobody"], 3, "no worker named nobody"],
    [["frobnicate"], 2, "unknown command"],
  ])("%j → exit %p", async (args, code, message) => {
    const r = await sb.umbel(args);
    expect(r.stderr).toContain(message);
    expect(r.stderr).not.toContain("    at ");
    expect(r.code).toBe(code);
    expect(existsSync(join(sb.root, "sessions", "x"))).toBe(false);
  });

  test("a missing CLI is exit 127", async () => {
    const r = await sb.umbel(["spawn", "nobin"], { env: { UMBEL_CLAUDE_BIN: "/nonexistent/claude" } });
    expect(r.stderr).toContain("UMBEL_CLAUDE_BIN");
    expect(r.code).toBe(127);
    expect(existsSync(join(sb.root, "sessions", "nobin"))).toBe(false);
  });

  test("a sign-in screen is refused with 126 and unwound", async () => {
    const r = await sb.umbel(["spawn", "signin", "--env", "FAKE_CLAUDE_SIGNIN=1"]);
    expect(r.stderr).toContain("not signed in");
    expect(r.code).toBe(126);
    expect(existsSync(join(sb.root, "sessions", "signin"))).toBe(false);
    expect((await sb.umbel(["ls"])).stdout).not.toContain("signin");
  });

  test("a long-lived token: the refusal names it and the flag; --env or config.toml passes it, never its value to a file", async () => {
    const token = "sk-ant-oat01-e2e-never-in-a-file";
    const env = { CLAUDE_CODE_OAUTH_TOKEN: token, FAKE_CLAUDE_SIGNIN: "1" };
    const refused = await sb.umbel(["spawn", "tok", "--env", "FAKE_CLAUDE_SIGNIN"], { env });
    expect(refused.stderr).toContain(
      "not signed in: CLAUDE_CODE_OAUTH_TOKEN is set, but a worker never inherits a secret: pass it with --env CLAUDE_CODE_OAUTH_TOKEN",
    );
    expect({ refused: refused.code, stderr: refused.stderr }).toMatchObject({ refused: 126 });
    const flagged = await sb.umbel(
      ["spawn", "tok", "--env", "FAKE_CLAUDE_SIGNIN", "--env", "CLAUDE_CODE_OAUTH_TOKEN"],
      {
        env,
      },
    );
    expect({ flagged: flagged.code, stderr: flagged.stderr }).toEqual({ flagged: 0, stderr: "" });
    const config = join(sb.root, "config.toml");
    writeFileSync(config, '[claude]\nenv = ["CLAUDE_CODE_OAUTH_TOKEN", "FAKE_CLAUDE_SIGNIN"]\n');
    try {
      const configured = await sb.umbel(["spawn", "tok2"], { env });
      expect({ configured: configured.code, stderr: configured.stderr }).toEqual({
        configured: 0,
        stderr: "",
      });
    } finally {
      rmSync(config);
    }
    // tok and tok2 are alive: their hooks' and statusline's temp files come and go during the walk
    // (listed, then renamed away before the stat: ENOENT); one that is gone held nothing to find.
    const gone = <T>(read: () => T, none: T): T => {
      try {
        return read();
      } catch (error) {
        if ((error as { code?: string }).code === "ENOENT") return none;
        throw error;
      }
    };
    const files = (dir: string): string[] =>
      gone(() => readdirSync(dir), [] as string[]).flatMap((n) =>
        gone(() => statSync(join(dir, n)).isDirectory(), false) ? files(join(dir, n)) : [join(dir, n)],
      );
    expect(files(sb.root).filter((f) => gone(() => readFileSync(f, "utf8"), "").includes(token))).toEqual([]);
    for (const name of ["tok", "tok2"]) {
      const killed = await sb.umbel(["kill", name, "--purge"]);
      expect({ name, killed: killed.code, stderr: killed.stderr }).toEqual({ name, killed: 0, stderr: "" });
    }
  });

  test("an untrusted folder's trust dialog is answered (its default is 'No, exit'), and said so", async () => {
    const fresh = join(sb.dir, "fresh");
    await Bun.write(join(fresh, ".keep"), "");
    const folder = realpathSync(fresh);
    const trustedBefore = readFileSync(join(sb.cfg, "fake-trusted"), "utf8");
    const r = await sb.umbel(["spawn", "trusty", "--cwd", fresh, "--json"]);
    expect(json(r.stdout).dialogsAnswered).toEqual(["trust"]);
    // claude keeps the answer, as a person's: spawn says what it answered, for which folder, and where.
    expect(json(r.stdout).dialogs).toEqual([
      {
        dialog: "trust",
        answer: "Yes, I trust this folder",
        folders: [folder],
        lasting: true,
        record: join(sb.cfg, ".claude.json"),
      },
    ]);
    expect(r.stderr).toBe(
      `umbel: trusty: answered claude's trust dialog for ${folder}: "Yes, I trust this folder"; claude keeps this answer in ${join(sb.cfg, ".claude.json")}\n`,
    );
    expect(readFileSync(join(sb.cfg, "fake-trusted"), "utf8")).toContain(fresh);
    await sb.umbel(["kill", "trusty", "--purge"]);
    // Without --json too: the result on stdout, the dialog on stderr.
    writeFileSync(join(sb.cfg, "fake-trusted"), trustedBefore);
    const text = await sb.umbel(["spawn", "trusty", "--cwd", fresh]);
    expect(text.stdout).toBe("trusty\n");
    expect(text.stderr).toContain(`answered claude's trust dialog for ${folder}`);
    await sb.umbel(["kill", "trusty", "--purge"]);
  });

  test("a duplicate name is exit 4 and the first worker is untouched", async () => {
    await spawn("dup");
    const r = await sb.umbel(["spawn", "dup"]);
    expect(r.stderr).toContain("already exists");
    expect(r.code).toBe(4);
    expect((await sb.umbel(["status", "dup", "--json"])).stdout).toContain('"state":"idle"');
  });
});
