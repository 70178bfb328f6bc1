import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { chmodSync, chownSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { errorOf, type ToolResult } from "../helpers/mcp-client.ts";
import { createSandbox, type Sandbox, UMBEL } from "../helpers/sandbox.ts";

// Dozens of short dist/umbel runs (bun's default is 5 s; oven-sh/bun#43787 for why it is set here).
setDefaultTimeout(60_000);

/**
 * The probes of issue 11, kept: damaged state files and broken state roots, through every face of
 * the built binary. Each is one line naming the path and what to do, exit 1 (never 70, never a
 * raw errno), and `--json` carries the typed error.
 */

let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox();
});
afterAll(async () => {
  await sb.dispose();
});

const ME = process.getuid?.() ?? 1000;
const NOBODY = 65534;
const ONE_LINE = /^umbel: [^\n]+\n$/;

function tombstone(name: string): string {
  return JSON.stringify({
    version: 1,
    name,
    provider: "claude",
    cwd: sb.work,
    bin: "/bin/true",
    sessionId: "00000000-0000-4000-8000-000000000000",
    socket: "unused",
    createdAt: new Date().toISOString(),
    envNames: [],
    state: "killed",
  });
}

describe("a directory where a state file should be, through the CLI", () => {
  const cases: [file: string, verbs: string[][]][] = [
    [
      "meta.json",
      [
        ["status", "w"],
        ["read", "w"],
        ["wait", "w"],
        ["kill", "w"],
      ],
    ],
    [
      "events/hooks.jsonl",
      [
        ["status", "w"],
        ["read", "w"],
        ["logs", "w"],
        ["wait", "w"],
      ],
    ],
    [
      "events/exit.json",
      [
        ["status", "w"],
        ["kill", "w"],
      ],
    ],
  ];
  test.each(cases)(
    "%s: every verb on w exits 1 naming it, ls lists w as broken, and it works once removed",
    async (file, verbs) => {
      const dir = join(sb.root, "sessions", "w");
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(join(dir, "events"), { recursive: true });
      if (file !== "meta.json") writeFileSync(join(dir, "meta.json"), tombstone("w"));
      const path = join(dir, file);
      mkdirSync(path);
      for (const args of verbs) {
        const r = await sb.umbel([...args, "--json"]);
        expect({ args, stderr: r.stderr }).toEqual({
          args,
          stderr: `umbel: cannot read ${path}: a directory is where a file should be (EISDIR); remove that directory\n`,
        });
        expect(JSON.parse(r.stdout).error).toMatchObject({
          code: "file-access",
          exitCode: 1,
          data: { path },
        });
        expect(r.code).toBe(1);
      }
      // One broken worker never breaks the fleet view (issue 22): ls lists it, exit 0.
      const ls = await sb.umbel(["ls", "--json"]);
      const [row] = JSON.parse(ls.stdout) as { name: string; state: string; broken: { file: string } }[];
      expect(row).toMatchObject({ name: "w", state: "broken", broken: { file: path } });
      expect(ls.code).toBe(0);
      rmSync(path, { recursive: true });
      if (file === "meta.json") writeFileSync(path, tombstone("w"));
      expect((await sb.umbel(["status", "w"])).code).toBe(0);
    },
  );
});

/** `umbel` with UMBEL_HOME=root; as another user (setpriv) when `as` is given and we are root. */
async function umbelAt(root: string, args: string[], as?: number, cwd = sb.work) {
  const argv =
    as === undefined
      ? [UMBEL, ...args]
      : ["setpriv", `--reuid=${as}`, `--regid=${as}`, "--clear-groups", UMBEL, ...args];
  const child = Bun.spawn(argv, {
    cwd,
    env: { ...sb.env, UMBEL_HOME: root },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
  ]);
  return { code: await child.exited, stdout, stderr };
}

/** The faces that touch state first: CLI verbs, -p, a workflow run. */
function faces(dir = sb.dir): string[][] {
  const flow = join(dir, "flow.yaml");
  writeFileSync(flow, "workers: { w: {} }\nsteps:\n  - { id: s, run: w, prompt: hi }\n");
  return [["ls"], ["status", "w"], ["spawn", "w"], ["prune"], ["-p", "hi"], ["run", flow]];
}

describe("a broken state root, through every face", () => {
  /** `as`: the uid to probe as; `open`: a folder that uid can use (its cwd and the workflow file's). */
  type Root = { root: string; says: string; as?: number; open?: string };
  const roots: [string, () => Root][] = [
    [
      "a file",
      () => {
        const root = join(sb.dir, "root-file");
        writeFileSync(root, "");
        return { root, says: `the state root ${root} is not a directory: remove it` };
      },
    ],
    [
      "a dangling link",
      () => {
        const root = join(sb.dir, "root-link");
        symlinkSync(join(sb.dir, "gone"), root);
        return { root, says: `is a symbolic link to ${join(sb.dir, "gone")}, which does not exist` };
      },
    ],
    [
      "another user's folder",
      () => {
        // Root can give a folder away; anyone else finds one in /.
        const root = ME === 0 ? join(sb.dir, "theirs") : "/";
        if (ME === 0) {
          mkdirSync(root, { mode: 0o700 });
          chownSync(root, NOBODY, NOBODY);
        }
        return { root, says: `belongs to uid ${ME === 0 ? NOBODY : 0}, not to you (uid ${ME})` };
      },
    ],
    [
      "a read-only folder of the caller's (0500)",
      () => {
        const root = join(sb.dir, "read-only");
        mkdirSync(root, { mode: 0o500 });
        chmodSync(root, 0o500);
        return { root, says: `is mode 0500, so umbel cannot read and write it: chmod 700 ${root}` };
      },
    ],
    [
      "an unreadable folder of the caller's (0000)",
      () => {
        const root = join(sb.dir, "unreadable");
        mkdirSync(root);
        chmodSync(root, 0);
        return { root, says: "is mode 0000" };
      },
    ],
    [
      "inside a folder the caller cannot enter (EACCES)",
      () => {
        // Root passes every permission check, so it probes as nobody, from a folder nobody can use.
        const open = join(sb.dir, "open");
        mkdirSync(open, { mode: 0o755 });
        chmodSync(sb.dir, 0o711);
        const locked = join(open, "locked");
        mkdirSync(locked, { mode: 0o700 });
        if (ME !== 0) chmodSync(locked, 0);
        const root = join(locked, "state");
        return {
          root,
          says: `cannot inspect ${root}: permission denied (EACCES); check its owner and mode`,
          open,
          ...(ME === 0 ? { as: NOBODY } : {}),
        };
      },
    ],
  ];
  test.each(roots)("%s: refused, naming it and what to do (exit 1)", async (_, make) => {
    const { root, says, as, open } = make();
    for (const args of faces(open)) {
      const r = await umbelAt(root, args, as, open);
      expect({ args, stderr: r.stderr, line: ONE_LINE.test(r.stderr) }).toMatchObject({ args, line: true });
      expect(r.stderr).toContain(says);
      expect(r.code).toBe(1);
    }
  });

  test("on a read-only filesystem (EROFS), where a mount namespace can make one", async () => {
    const mount = join(sb.dir, "ro");
    mkdirSync(mount);
    const script = `mount -t tmpfs -o ro none "$1" && shift && exec "$@"`;
    const probe = Bun.spawnSync(["unshare", "-m", "sh", "-c", script, "sh", mount, "true"]);
    if (probe.exitCode !== 0) return; // no privilege for a mount namespace: the unit table covers EROFS
    const root = join(mount, "state");
    for (const args of faces()) {
      const child = Bun.spawnSync(["unshare", "-m", "sh", "-c", script, "sh", mount, UMBEL, ...args], {
        cwd: sb.work,
        env: { ...sb.env, UMBEL_HOME: root },
      });
      expect(child.stderr.toString()).toBe(
        `umbel: cannot create ${root}: the filesystem is read-only (EROFS); set UMBEL_HOME to a writable folder\n`,
      );
      expect(child.exitCode).toBe(1);
    }
  });

  test("umbel mcp: a tool result with the typed error; the check runs again once the root is fixed", async () => {
    const root = join(sb.dir, "mcp-root");
    writeFileSync(root, "");
    const client = new Client({ name: "umbel-e2e", version: "0" });
    await client.connect(
      new StdioClientTransport({
        command: UMBEL,
        args: ["mcp"],
        env: { ...sb.env, UMBEL_HOME: root },
        cwd: sb.work,
        stderr: "pipe",
      }),
    );
    try {
      const call = async () => (await client.callTool({ name: "umbel_status", arguments: {} })) as ToolResult;
      const refused = await call();
      expect(refused.isError).toBe(true);
      expect(errorOf(refused)).toMatchObject({ code: "state-root", exitCode: 1, data: { path: root } });
      rmSync(root);
      const fixed = await call();
      expect(fixed.isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });
});
