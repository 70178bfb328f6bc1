import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, lstatSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createSandbox, eventually, type Sandbox } from "../helpers/sandbox.ts";

setDefaultTimeout(60_000);

/**
 * The warm pool through dist/umbel and the fake claude: warm, -p and spawn claim a spare at once,
 * a detached refill replaces it, a spare retires itself after its TTL with no umbel process alive,
 * drain removes the rest, and no environment value is ever written.
 */
type Spare = { name: string; state: string; key: string };

let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox({ env: { POOL_SECRET: "pool-secret-value-123" } });
});
afterAll(async () => {
  await sb.umbel(["pool", "drain"]);
  await sb.dispose();
});

const spares = async (): Promise<Spare[]> =>
  (JSON.parse((await sb.umbel(["pool", "ls", "--json"])).stdout) as { spares: Spare[] }).spares;
const ready = async (n: number) =>
  eventually(
    async () => {
      const list = await spares();
      return list.filter((s) => s.state === "ready").length === n ? list : null;
    },
    30_000,
    `${n} ready spares`,
  );

describe("the warm pool", () => {
  // -p's workers never ask a person (docs/cli-reference.md, "Permissions"): its spares are warmed so.
  test("warm 1: one ready spare, listed; a second warm of the same spawn makes none", async () => {
    const r = await sb.umbel(["pool", "warm", "1", "--non-interactive", "--env", "POOL_SECRET", "--json"]);
    const result = JSON.parse(r.stdout) as { made: string[]; spares: Spare[] };
    expect(result.made).toHaveLength(1);
    expect(result.spares).toEqual([expect.objectContaining({ name: result.made[0], state: "ready" })]);
    expect(r.code).toBe(0);
    const again = JSON.parse(
      (await sb.umbel(["pool", "warm", "1", "--non-interactive", "--env", "POOL_SECRET", "--json"])).stdout,
    );
    expect(again.made).toEqual([]);
  });

  test("-p with the same spawn claims it (a fresh conversation), and a detached refill replaces it", async () => {
    const [before] = await ready(1);
    const r = await sb.umbel(["-p", "fake:history", "--env", "POOL_SECRET"], { env: { UMBEL_TRACE: "1" } });
    expect(r.stdout).toBe("HISTORY n=0 last=none\n");
    expect(r.stderr).toContain(`pool: claimed ${before?.name}`);
    expect(r.stderr).not.toContain("new-session");
    expect(r.code).toBe(0);
    expect(existsSync(join(sb.root, "sessions", before?.name ?? ""))).toBe(false);
    const [after] = await ready(1);
    expect(after?.name).not.toBe(before?.name);
    expect(after?.key).toBe(before?.key);
  });

  test("-p with another env value does not match: a worker of its own", async () => {
    await ready(1);
    const r = await sb.umbel(["-p", "hi", "--env", "POOL_SECRET=other"], { env: { UMBEL_TRACE: "1" } });
    expect(r.stderr).not.toContain("pool: claimed");
    expect(r.stderr).toContain("new-session");
    expect(r.code).toBe(0);
  });

  test("-p never claims a spare of the TUI's own mode (claude: auto, where it would run what -p refuses)", async () => {
    await ready(1);
    expect((await sb.umbel(["pool", "drain"])).code).toBe(0);
    expect((await sb.umbel(["pool", "warm", "1", "--env", "POOL_SECRET"])).code).toBe(0);
    await ready(1);
    const r = await sb.umbel(["-p", "hi", "--env", "POOL_SECRET"], { env: { UMBEL_TRACE: "1" } });
    expect(r.stderr).not.toContain("pool: claimed");
    expect(r.stderr).toContain("new-session");
    expect(r.code).toBe(0);
  });

  test("spawn NAME claims one: NAME answers every verb, ls shows no second name, kill --purge removes both", async () => {
    const [spare] = await ready(1);
    const r = await sb.umbel(["spawn", "taken", "--env", "POOL_SECRET", "--json"]);
    expect(JSON.parse(r.stdout)).toMatchObject({ name: "taken", dialogsAnswered: [] });
    const ls = JSON.parse((await sb.umbel(["ls", "--json"])).stdout) as { name: string }[];
    expect(ls.map((w) => w.name)).toContain("taken");
    expect(ls.map((w) => w.name)).not.toContain(spare?.name);
    // Taken for good: the spare's watch (TTL, owner) ends; only the CLI is left under the wrapper.
    const { pid } = JSON.parse((await sb.umbel(["status", "taken", "--json"])).stdout) as { pid: number };
    const children = () =>
      Bun.spawnSync(["ps", "-o", "pid=", "--ppid", String(pid)])
        .stdout.toString()
        .trim()
        .split("\n").length;
    await eventually(() => children() === 1, 5000, "the spare's watch to end");
    const sent = await sb.umbel(["send", "taken", "fake:reply pooled"]);
    expect(sent.code).toBe(0);
    expect((await sb.umbel(["wait", "taken"])).code).toBe(0);
    expect((await sb.umbel(["read", "taken"])).stdout).toBe("pooled\n");
    expect(lstatSync(join(sb.root, "sessions", spare?.name ?? "")).isSymbolicLink()).toBe(true);
    expect((await sb.umbel(["kill", "taken", "--purge"])).code).toBe(0);
    expect(readdirSync(join(sb.root, "sessions")).filter((n) => n === "taken" || n === spare?.name)).toEqual(
      [],
    );
  });

  test("no environment value is written anywhere under the state root", async () => {
    await ready(1);
    const walk = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
        const path = join(dir, e.name);
        if (e.isSymbolicLink()) return [];
        return e.isDirectory() ? walk(path) : [path];
      });
    for (const file of walk(sb.root))
      expect({ file, leaks: readFileSync(file, "utf8").includes("pool-secret-value-123") }).toEqual({
        file,
        leaks: false,
      });
  });

  test("drain removes every spare", async () => {
    await ready(1);
    const r = await sb.umbel(["pool", "drain"]);
    expect(r.stdout).toMatch(/^removed pool-[0-9a-f]{8}\n$/);
    expect(await spares()).toEqual([]);
  });

  test("an idle spare retires itself after its TTL, with no umbel process alive", async () => {
    const r = await sb.umbel(["pool", "warm", "1", "--ttl", "2s", "--json"]);
    const [name] = (JSON.parse(r.stdout) as { made: string[] }).made;
    expect(existsSync(join(sb.root, "sessions", name ?? ""))).toBe(true);
    await eventually(() => !existsSync(join(sb.root, "sessions", name ?? "")), 15_000, "the spare to retire");
    expect(await spares()).toEqual([]);
    const tmux = await sb.umbel(["ls", "--json"]);
    expect(tmux.stdout).not.toContain(name ?? "-");
  });
});

describe("the warm pool in every dialect, and with the guardrails", () => {
  const SCHEMA = JSON.stringify({ type: "object", properties: { n: { type: "number" } }, required: ["n"] });
  const claims = async (args: string[]) => {
    const [spare] = await ready(1);
    const r = await sb.umbel(args, { env: { UMBEL_TRACE: "1" } });
    expect({ args, claimed: r.stderr.includes(`pool: claimed ${spare?.name}`) }).toEqual({
      args,
      claimed: true,
    });
    expect(r.stderr).not.toContain("new-session");
    return r;
  };

  test("umbel exec and -p --dialect gemini claim a spare of the same spawn", async () => {
    await sb.umbel(["pool", "warm", "1", "--non-interactive", "--env", "POOL_SECRET"]);
    // exec's own default is codex, gemini -p's gemini: the spare is claude's, so they name it.
    const exec = await claims([
      "exec",
      "--provider",
      "claude",
      "--env",
      "POOL_SECRET",
      "fake:reply from exec",
    ]);
    expect(exec.stdout).toBe("from exec\n");
    expect(exec.code).toBe(0);
    const gemini = await claims([
      "-p",
      "--dialect",
      "gemini",
      "--provider",
      "claude",
      "--env",
      "POOL_SECRET",
      "-p",
      "fake:reply g",
    ]);
    expect(gemini.stdout).toBe("g\n");
    expect(gemini.code).toBe(0);
    await ready(1); // the last refill
    expect((await sb.umbel(["pool", "drain"])).code).toBe(0);
  });

  test("--structured is part of the key: -p --json-schema claims only a --structured spare, whose server answers", async () => {
    await sb.umbel(["pool", "warm", "1", "--structured", "--non-interactive"]);
    const [spare] = await ready(1);
    const plain = await sb.umbel(["-p", "fake:reply plain"], { env: { UMBEL_TRACE: "1" } });
    expect(plain.stdout).toBe("plain\n");
    expect(plain.stderr).not.toContain("pool: claimed");
    const r = await claims([
      "-p",
      'fake:mcp StructuredOutput {"n":5}',
      "--json-schema",
      SCHEMA,
      "--output-format",
      "json",
    ]);
    expect(JSON.parse(r.stdout)).toMatchObject({ subtype: "success", structured_output: { n: 5 } });
    expect(r.stderr).toContain(`pool: claimed ${spare?.name}`);
    expect(r.code).toBe(0);
  });

  test("spawn NAME --structured takes a --structured spare over; its StructuredOutput server still records the turn", async () => {
    await ready(1); // the refill of the claim above (with --structured and --non-interactive)
    const r = await claims(["spawn", "shaped", "--structured", "--non-interactive"]);
    expect(r.code).toBe(0);
    const sent = await sb.umbel([
      "send",
      "shaped",
      'fake:mcp StructuredOutput {"n":8}',
      "--json-schema",
      SCHEMA,
    ]);
    expect(sent.code).toBe(0);
    const waited = await sb.umbel(["wait", "shaped", "--json"]);
    expect(JSON.parse(waited.stdout)).toMatchObject({ reason: "stop", evidence: { structured: { n: 8 } } });
    expect(waited.code).toBe(0);
    expect((await sb.umbel(["kill", "shaped", "--purge"])).code).toBe(0);
  });

  test("pool warm takes no --notify, and a spawn with --notify starts a worker of its own", async () => {
    const warm = await sb.umbel(["pool", "warm", "1", "--notify", "true"]);
    expect(warm.code).toBe(2);
    await ready(1);
    const r = await sb.umbel(["spawn", "told", "--structured", "--non-interactive", "--notify", "true"], {
      env: { UMBEL_TRACE: "1" },
    });
    expect(r.stderr).not.toContain("pool: claimed");
    expect(r.code).toBe(0);
    expect((await sb.umbel(["kill", "told", "--purge"])).code).toBe(0);
    expect((await sb.umbel(["pool", "drain"])).code).toBe(0);
  });
});
