import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sendAndWait, spawnOk } from "../helpers/cli.ts";
import { ALLOWED, ASKED, CASE_RULES, DENIED } from "../helpers/policy-cases.ts";
import { createSandbox, type Sandbox } from "../helpers/sandbox.ts";

// Each batch is one turn of 66-89 tool calls, every one decided by the worker's own hook starting
// dist/umbel (~60-150 ms a call on a loaded 2-core machine).
setDefaultTimeout(240_000);

/**
 * The policy probes end to end: dist/umbel spawns the fake claude and the fake codex with the
 * table's rules, and one turn (`fake:policy-batch FILE`) makes every call of the table; the worker's
 * hooks decide each, the fake runs what they allow. Denied commands run with `--allow Bash` beside
 * the deny rules (issue 22's case: everything else runs), and the file they would delete survives.
 */

let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox();
});
afterAll(async () => {
  await sb.dispose();
});

const rulesFlags = (rules: { allow: readonly string[]; deny: readonly string[] }) => [
  ...rules.allow.flatMap((r) => ["--allow", r]),
  ...rules.deny.flatMap((r) => ["--deny", r]),
];

function batchFile(name: string, commands: readonly string[]): string {
  const file = join(sb.dir, `${name}.batch`);
  writeFileSync(file, commands.map((c) => Buffer.from(c).toString("base64")).join("\n"));
  return file;
}

/** The decisions the worker's events log records, per command and hook event. */
function decisions(name: string): Map<string, { decision: string; rule: string }> {
  const log = readFileSync(join(sb.root, "sessions", name, "events", "hooks.jsonl"), "utf8");
  const found = new Map<string, { decision: string; rule: string }>();
  for (const line of log.trim().split("\n")) {
    const payload = JSON.parse(line) as Record<string, unknown>;
    const marker = payload.umbel_policy as { decision: string; rule: string } | undefined;
    const command = (payload.tool_input as { command?: string } | undefined)?.command;
    if (marker && command !== undefined) found.set(`${payload.hook_event_name} ${command}`, marker);
  }
  return found;
}

async function batch(name: string, commands: readonly string[]) {
  const turn = await sendAndWait(sb, name, `fake:policy-batch ${batchFile(name, commands)}`, [
    "--timeout",
    "200s",
  ]);
  expect(turn.outcome.reason).toBe("stop");
  return String((await sb.umbel(["read", name])).stdout).trim();
}

describe.each([
  ["claude", ["--permission-mode", "manual"]],
  ["codex", []],
] as const)("the probe table on the fake %s", (provider, flags) => {
  test("allowed calls run with no prompt, by the rule named; the rest are asked", async () => {
    const name = `pa-${provider}`;
    await spawnOk(sb, name, ["--provider", provider, ...flags, ...rulesFlags(CASE_RULES)]);
    const answer = await batch(name, [...ALLOWED.map(([c]) => c), ...ASKED]);
    expect(answer).toBe(`FAKE-BATCH ran=${ALLOWED.length} denied=0 asked=${ASKED.length}`);
    const found = decisions(name);
    for (const [command, rule] of ALLOWED)
      expect({ command, decided: found.get(`PermissionRequest ${command}`) }).toEqual({
        command,
        decided: { decision: "allow", rule },
      });
    for (const command of ASKED) expect(found.has(`PermissionRequest ${command}`)).toBe(false);
    expect(existsSync(join(sb.work, "new.txt"))).toBe(true);
  });

  test("with --allow Bash beside the deny rules, every denied form is refused and its file survives", async () => {
    const name = `pd-${provider}`;
    writeFileSync(join(sb.work, "v"), "keep");
    await spawnOk(sb, name, [
      "--provider",
      provider,
      ...flags,
      ...rulesFlags({ allow: ["Bash"], deny: CASE_RULES.deny }),
    ]);
    const answer = await batch(
      name,
      DENIED.map(([c]) => c),
    );
    expect(answer).toBe(`FAKE-BATCH ran=0 denied=${DENIED.length} asked=0`);
    const found = decisions(name);
    for (const [command, rule] of DENIED)
      expect({ command, decided: found.get(`PreToolUse ${command}`)?.rule }).toEqual({
        command,
        decided: rule,
      });
    expect(readFileSync(join(sb.work, "v"), "utf8")).toBe("keep");
  });
});
