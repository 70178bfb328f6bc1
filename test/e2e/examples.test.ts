import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { join, relative } from "node:path";
import { createSandbox, REPO, type Sandbox, UMBEL } from "../helpers/sandbox.ts";

/**
 * Every file in examples/ runs exactly as its header says, on the fake CLIs, in a scratch copy of
 * the checkout (`examples/` and nothing else beside it), with `umbel` on PATH. A header command is
 * a comment line indented three spaces (`#   umbel run …`); one that ends in `&&` or `\` goes on
 * the next line. And no example, run in place, lets a worker that edits work in umbel's checkout.
 */

// A workflow spawns several workers on real tmux; bun's default is 5 s (declared here: a
// preload's setDefaultTimeout reaches only the first file of a run, oven-sh/bun#43787).
setDefaultTimeout(120_000);

const EXAMPLES = join(REPO, "examples");
const FILES = readdirSync(EXAMPLES)
  .filter((f) => f.endsWith(".yaml"))
  .sort();

/** The commands of a file's leading comment block, continuation lines joined. */
function headerCommands(text: string): string[] {
  const commands: string[] = [];
  let open = false;
  for (const line of text.split("\n")) {
    if (!line.startsWith("#")) break;
    const command = /^# {3}(\S.*)$/.exec(line)?.[1];
    if (command === undefined) {
      open = false;
      continue;
    }
    if (open) commands[commands.length - 1] += `\n${command}`;
    else commands.push(command);
    open = /(&&|\\)\s*$/.test(command);
  }
  return commands;
}

let sb: Sandbox;
let checkout: string;
let env: Record<string, string>;
beforeAll(async () => {
  sb = await createSandbox();
  checkout = join(sb.dir, "checkout");
  mkdirSync(checkout);
  cpSync(EXAMPLES, join(checkout, "examples"), { recursive: true });
  const bin = join(sb.dir, "bin");
  mkdirSync(bin);
  symlinkSync(UMBEL, join(bin, "umbel"));
  env = { ...sb.env, PATH: `${bin}:${sb.env.PATH}` };
});
afterAll(async () => {
  await sb.dispose();
});

async function sh(script: string, cwd: string, extra: Record<string, string> = {}) {
  const child = Bun.spawn(["sh", "-c", script], {
    cwd,
    env: { ...env, ...extra },
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

test("every example has at least one command in its header", () => {
  expect(FILES.length).toBeGreaterThan(0);
  for (const file of FILES)
    expect({ file, commands: headerCommands(readFileSync(join(EXAMPLES, file), "utf8")).length }).not.toEqual(
      {
        file,
        commands: 0,
      },
    );
});

describe.each(FILES)("examples/%s", (file) => {
  const commands = headerCommands(readFileSync(join(EXAMPLES, file), "utf8"));

  test.each(commands)("runs as its header says: %s", async (command) => {
    const r = await sh(command, checkout);
    const dry = command.includes("--dry-run");
    expect({ stderr: r.stderr.split("\n").filter((l) => l.startsWith("umbel:")) }).toEqual({ stderr: [] });
    expect(r.stdout).toMatch(dry ? /^plan for / : /^run \S+ done: (\d+)\/\1 steps done in /);
    expect(r.code).toBe(0);
  });

  test("run in place, it never lets a worker that edits work in umbel's checkout", async () => {
    // Every variable a header sets, so the plan is checked past the environment.
    const vars = Object.fromEntries(
      commands.flatMap((c) => [...c.matchAll(/\b([A-Z][A-Z0-9_]*)=(\S+)/g)].map((m) => [m[1], m[2]])),
    );
    const r = await sh(`umbel run ${join(EXAMPLES, file)} --dry-run --json`, REPO, vars);
    if (r.code !== 0) {
      // A refusal to start is safe: nothing was spawned.
      expect(JSON.parse(r.stdout).error).toMatchObject({ code: "usage", exitCode: 2 });
      expect(r.code).toBe(2);
      return;
    }
    const { workers } = JSON.parse(r.stdout) as {
      workers: Record<string, { cwd: string; permissionMode?: string; unattended?: boolean }>;
    };
    for (const [key, w] of Object.entries(workers)) {
      const edits =
        w.unattended === true || ["acceptEdits", "bypassPermissions"].includes(w.permissionMode ?? "");
      const inside = !relative(REPO, w.cwd).startsWith("..");
      expect({ key, edits, inside }).not.toEqual({ key, edits: true, inside: true });
    }
  });
});
