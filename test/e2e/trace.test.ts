import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createSandbox, type Sandbox } from "../helpers/sandbox.ts";

setDefaultTimeout(60_000);

/**
 * UMBEL_TRACE=1 / --trace: a timeline on stderr (module load, every tmux call, each hook seen, the
 * phases of a turn), stdout unchanged. Users need it when a vendor release makes a turn slow.
 */
const LINE = /^umbel\[\d+\] \+ *\d+\.\d ms {2}/;

let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox();
});
afterAll(async () => {
  await sb.dispose();
});

describe("the trace", () => {
  test("UMBEL_TRACE=1: stdout is what it is without it; every stderr line is a mark, the last the exit", async () => {
    const plain = await sb.umbel(["ls", "--json"]);
    const traced = await sb.umbel(["ls", "--json"], { env: { UMBEL_TRACE: "1" } });
    expect(traced.stdout).toBe(plain.stdout);
    const lines = traced.stderr.trimEnd().split("\n");
    for (const line of lines) expect(line).toMatch(LINE);
    expect(lines[0]).toMatch(/umbel ls: modules loaded at \+\d+\.\d ms$/);
    expect(lines).toContainEqual(expect.stringMatching(/face cli loaded$/));
    // Where a short verb's start goes: loading (modules, schemas) until its input is parsed, then its own work.
    const at = (mark: RegExp) => lines.findIndex((line) => mark.test(line));
    expect(at(/face cli loaded$/)).toBeLessThan(at(/verb ls loaded$/));
    expect(at(/verb ls loaded$/)).toBeLessThan(at(/verb ls: input parsed, running$/));
    expect(lines.at(-1)).toMatch(/exit 0$/);
    expect(traced.code).toBe(0);
  });

  test("--trace does the same and is taken out of the argv (status has no such flag)", async () => {
    const r = await sb.umbel(["status", "--trace"]);
    expect(r.stderr).toMatch(/umbel status: modules loaded/);
    expect(r.code).toBe(0);
  });

  test("a -p turn shows its phases: the session started, each hook, ready, the paste, the outcome", async () => {
    const r = await sb.umbel(["-p", "traced turn"], { env: { UMBEL_TRACE: "1" } });
    expect(r.stdout).toStartWith("FAKE-REPLY");
    const marks = r.stderr
      .trimEnd()
      .split("\n")
      .map((line) => line.replace(LINE, ""));
    const order = [
      /^face print loaded$/,
      /^tmux load-buffer\+set-option\+set-option\+set-option\+new-session\+set-option p-[0-9a-f]{8} → 0/,
      /^hook SessionStart p-[0-9a-f]{8} #0/,
      /^spawn p-[0-9a-f]{8}: ready$/,
      /^send p-[0-9a-f]{8}: pasted 11 chars/,
      /^hook UserPromptSubmit p-[0-9a-f]{8} #1/,
      /^hook Stop p-[0-9a-f]{8} #2/,
      /^wait p-[0-9a-f]{8}: stop$/,
      /^tmux kill-session =p-[0-9a-f]{8} → 0/,
      /^exit 0$/,
    ];
    let at = -1;
    for (const want of order) {
      const found = marks.findIndex((mark, i) => i > at && want.test(mark));
      expect({ want: want.source, found: found > at }).toEqual({ want: want.source, found: true });
      at = found;
    }
    expect(r.code).toBe(0);
  });

  test("off, nothing is printed", async () => {
    const r = await sb.umbel(["ls"]);
    expect(r.stderr).toBe("");
  });
});
