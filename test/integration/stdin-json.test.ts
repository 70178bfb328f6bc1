import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { runInProcess } from "../helpers/run-main.ts";
import { createSandbox, type Sandbox } from "../helpers/sandbox.ts";

// A preload's setDefaultTimeout reaches only the first file of a run (bun 1.4.5).
setDefaultTimeout(30_000);

/**
 * The remote side of a host's call, in-process: `umbel VERB --stdin-json --json` reads one envelope
 * line from stdin (docs/hosts.md). Every refusal here comes before any worker is looked up.
 */

let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox();
});
afterAll(async () => {
  await sb.dispose();
});

async function run(argv: string[], stdin: string, stream = true) {
  const r = await runInProcess(sb, argv, { stdin, stream });
  return {
    ...r,
    error: r.stdout ? (JSON.parse(r.stdout) as { error?: Record<string, unknown> }).error : undefined,
  };
}

const envelope = (input: Record<string, unknown>, protocol = 1) => `${JSON.stringify({ protocol, input })}\n`;

describe("umbel VERB --stdin-json", () => {
  test("the input is the envelope's, parsed by the verb's schema (a worker not found here: 3)", async () => {
    for (const stream of [true, false]) {
      const r = await run(["status", "--stdin-json", "--json"], envelope({ name: "nobody" }), stream);
      expect(r.error).toMatchObject({ code: "not-found" });
      expect(r.code).toBe(3);
    }
  });

  test("another protocol is refused naming both", async () => {
    const r = await run(["status", "--stdin-json", "--json"], envelope({ name: "w" }, 2));
    expect(r.stderr).toBe(
      "umbel: this umbel speaks protocol 1, its caller 2: install the same umbel on both\n",
    );
    expect(r.error).toMatchObject({ code: "protocol-mismatch", data: { local: 2, remote: 1 } });
    expect(r.code).toBe(127);
  });

  test.each([
    ["not JSON", ["status", "--stdin-json", "--json"], "hello\n", "stdin is not an envelope"],
    [
      "a bad field",
      ["wait", "--stdin-json", "--json"],
      envelope({ name: "w", timeout: "soon" }),
      "not a duration",
    ],
    ["an unknown field", ["read", "--stdin-json", "--json"], envelope({ name: "w", bogus: 1 }), "bogus"],
    [
      "a second hop",
      ["status", "--stdin-json", "--json"],
      envelope({ name: "box:w" }),
      "NAME, never HOST:NAME",
    ],
    [
      "spawn --host there",
      ["spawn", "--stdin-json", "--json"],
      envelope({ name: "w", host: "box" }),
      "never HOST:NAME",
    ],
    [
      "another argument",
      ["status", "--stdin-json", "w", "--json"],
      envelope({ name: "w" }),
      "no argument but --json",
    ],
  ])("%s: a usage error (2)", async (_what, argv, stdin, message) => {
    const r = await run(argv, stdin);
    expect(r.stderr).toContain(message);
    expect(r.error).toMatchObject({ code: "usage" });
    expect(r.code).toBe(2);
  });
});
