import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createSandbox, type Sandbox, UMBEL } from "../helpers/sandbox.ts";

/**
 * What a person at a terminal reads, beside what a script reads through a pipe: `ls` with no
 * workers, `spawn`'s line, `capture`'s screen without the pane's empty bottom.
 */

// Workers on real tmux take seconds a test; bun's default is 5 s (declared here: a preload's
// setDefaultTimeout reaches only the first file of a run, oven-sh/bun#43787).
setDefaultTimeout(60_000);

let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox();
});
afterAll(async () => {
  await sb.dispose();
});

/** The verb with a pseudo-terminal for stdin and stdout (script(1)); its output with \r\n undone. */
function onTerminal(args: string[]): { code: number; stdout: string } {
  const command = [UMBEL, ...args].map((a) => `'${a}'`).join(" ");
  const r = Bun.spawnSync(["script", "-qec", command, "/dev/null"], { cwd: sb.work, env: sb.env });
  return { code: r.exitCode ?? -1, stdout: r.stdout.toString().replaceAll("\r\n", "\n") };
}

describe("no workers", () => {
  test("ls and status print a line on a terminal, nothing through a pipe", async () => {
    for (const verb of ["ls", "status"]) {
      expect(onTerminal([verb])).toEqual({ code: 0, stdout: "no workers\n" });
      const piped = await sb.umbel([verb]);
      expect(piped.stdout).toBe("");
      expect(piped.code).toBe(0);
      expect(onTerminal([verb, "--json"])).toEqual({ code: 0, stdout: "[]\n" });
    }
  });
});

describe("a worker", () => {
  test("spawn: one line on a terminal that says what is next; the name through a pipe", async () => {
    const shown = onTerminal(["spawn", "tty"]);
    expect(shown.stdout).toMatch(
      /^tty is ready \(claude in \S+, \d+\.\ds\)\. Next: umbel send tty "PROMPT"\n$/,
    );
    expect(shown.code).toBe(0);
    const piped = await sb.umbel(["spawn", "piped"]);
    expect(piped.stdout).toBe("piped\n");
    expect(piped.code).toBe(0);
  });

  test("capture ends at the last text; --keep-blank keeps the pane's empty bottom", async () => {
    const trimmed = await sb.umbel(["capture", "piped"]);
    expect(trimmed.stdout).toContain("❯");
    expect(trimmed.stdout).toMatch(/\S[^\n]*\n$/);
    const whole = await sb.umbel(["capture", "piped", "--keep-blank"]);
    expect(whole.stdout.startsWith(trimmed.stdout.trimEnd())).toBe(true);
    expect(whole.stdout.split("\n").length).toBeGreaterThan(trimmed.stdout.split("\n").length);
    expect(whole.stdout).toMatch(/\n\n$/);
    const json = await sb.umbel(["capture", "piped", "--json"]);
    expect(JSON.parse(json.stdout).screen).toBe(trimmed.stdout);
  });
});
