import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { connectMcp, textOf } from "../helpers/mcp-client.ts";
import { createSandbox, eventually, type Sandbox, UMBEL } from "../helpers/sandbox.ts";

// Workers on real tmux take seconds a test; bun's default is 5 s.
setDefaultTimeout(60_000);

/**
 * Trust through the fake claude, which keeps a "Yes" to its trust dialog in $CLAUDE_CONFIG_DIR/
 * fake-trusted as the real one keeps it in .claude.json, and honours CLAUDE_CODE_SANDBOXED as the
 * real one does (trusted for the session, nothing recorded): spawn's trust lasts and is said;
 * -p (killed or not) and the warm pool's spares leave none behind.
 */

let sb: Sandbox;
let folder: string;
const record = () => join(sb.cfg, "fake-trusted");
const sessions = () => (existsSync(join(sb.root, "sessions")) ? readdirSync(join(sb.root, "sessions")) : []);

beforeAll(async () => {
  // Nothing trusted: the fake asks about every folder.
  sb = await createSandbox({ untrusted: true });
  folder = realpathSync(sb.work);
});
afterAll(async () => {
  await sb.dispose();
});

describe("trust", () => {
  test("umbel -p in an untrusted folder asks nothing and records nothing, as claude -p", async () => {
    const r = await sb.umbel(["-p", "hello", "--output-format", "json"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).umbel).not.toHaveProperty("dialogs");
    expect(existsSync(record())).toBe(false);
    expect(sessions()).toEqual([]);
  });

  test("a claude that asks anyway: -p refuses to answer (126), trusts nothing and leaves no worker", async () => {
    const r = await sb.umbel(["-p", "hello", "--env", "FAKE_CLAUDE_IGNORE_SANDBOXED=1"]);
    expect(r.stderr).toContain(`asks to trust ${folder}`);
    expect(r.stderr).toContain("for its own session only");
    expect(r.code).toBe(126);
    expect(existsSync(record())).toBe(false);
    expect(sessions()).toEqual([]);
  });

  test("a -p killed mid-turn (SIGKILL: nothing of umbel runs after it) leaves no trust", async () => {
    const child = Bun.spawn([UMBEL, "-p", "fake:hang"], {
      cwd: sb.work,
      env: sb.env,
      stdout: "ignore",
      stderr: "ignore",
    });
    await eventually(
      async () => (await sb.umbel(["ls", "--json"])).stdout.includes('"state":"busy"'),
      15_000,
      "the turn to start",
    );
    child.kill("SIGKILL");
    await child.exited;
    expect(existsSync(record())).toBe(false);
    for (const name of sessions()) await sb.umbel(["kill", name, "--purge"]);
  });

  test("pool warm: a spare trusts its folder for its own session only; -p claims it; nothing recorded", async () => {
    const warmed = await sb.umbel(["pool", "warm", "1", "--json"]);
    expect(warmed.stderr).toBe("");
    expect(warmed.code).toBe(0);
    expect(JSON.parse(warmed.stdout).dialogs).toEqual([]);
    const r = await sb.umbel(["-p", "from a spare"]);
    expect(r.code).toBe(0);
    expect(existsSync(record())).toBe(false);
    await sb.umbel(["pool", "drain"]);
  });

  test("spawn answers the dialog as a person would, says so on stderr and in JSON, and it lasts", async () => {
    const r = await sb.umbel(["spawn", "t1", "--json"]);
    expect(r.code).toBe(0);
    const keeps = join(sb.cfg, ".claude.json");
    expect(r.stderr).toBe(
      `umbel: t1: answered claude's trust dialog for ${folder}: "Yes, I trust this folder"; claude keeps this answer in ${keeps}\n`,
    );
    expect(JSON.parse(r.stdout).dialogs).toEqual([
      {
        dialog: "trust",
        answer: "Yes, I trust this folder",
        folders: [folder],
        lasting: true,
        record: keeps,
      },
    ]);
    expect(readFileSync(record(), "utf8")).toBe(`${folder}\n`);
    await sb.umbel(["kill", "t1", "--purge"]);
  });
});

describe("trust in a workflow run", () => {
  test("each dialog a worker answered is a log line (text) and an event plus the summary's (--json)", async () => {
    const dir = join(sb.dir, "wf");
    await Bun.write(
      join(dir, "wf.yaml"),
      "workers: { a: {} }\nsteps:\n  - { id: s, run: a, prompt: hello }\n",
    );
    const folder = realpathSync(dir);
    const text = await sb.umbel(["run", join(dir, "wf.yaml")]);
    expect(text.code).toBe(0);
    expect(text.stderr).toMatch(
      new RegExp(
        `\\d\\d:\\d\\d:\\d\\d umbel: a-[0-9a-f]+-1: answered claude's trust dialog for ${folder}: "Yes, I trust this folder"; claude keeps this answer in `,
      ),
    );
    // The trust lasts (as spawn's), so a second run in the folder is asked nothing: use another.
    const other = join(sb.dir, "wf2");
    await Bun.write(
      join(other, "wf.yaml"),
      "workers: { a: {} }\nsteps:\n  - { id: s, run: a, prompt: hello }\n",
    );
    const json = await sb.umbel(["run", join(other, "wf.yaml"), "--json"]);
    expect(json.code).toBe(0);
    const events = json.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const dialog = { dialog: "trust", folders: [realpathSync(other)], lasting: true };
    expect(events.filter((e) => e.event === "dialog")).toEqual([expect.objectContaining(dialog)]);
    expect(events.at(-1)?.dialogs).toEqual([expect.objectContaining({ provider: "claude", ...dialog })]);
  });
});

describe("trust over MCP", () => {
  test("umbel_spawn's result lists the dialog, and its text says it", async () => {
    const other = join(sb.dir, "other");
    await Bun.write(join(other, ".keep"), "");
    const mcp = await connectMcp(sb);
    try {
      const r = await mcp.call("umbel_spawn", { name: "m1", cwd: other });
      expect(r.structuredContent?.dialogs).toEqual([
        expect.objectContaining({ dialog: "trust", folders: [realpathSync(other)], lasting: true }),
      ]);
      expect(textOf(r)).toContain(`answered claude's trust dialog for ${realpathSync(other)}`);
      await mcp.ok("umbel_kill", { name: "m1", purge: true });
    } finally {
      await mcp.close();
    }
  });
});
