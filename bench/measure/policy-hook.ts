/**
 * What a --allow/--deny decision costs per tool call: hooks/hook.sh from its start to its answer
 * (the process's exit), min / p50 / p90 of N rounds, for
 * - an event no rule answers (Stop: the hot path, no umbel process);
 * - a call of a tool no rule names (Grep at PreToolUse under a Bash rule: one grep, no umbel);
 * - a non-shell call (Read at PermissionRequest: umbel's `__policy` face, no shell parser);
 * - a shell call (Bash at PreToolUse under a deny rule: the face and tree-sitter-bash);
 * - the same Bash call under the hook.sh before issue 22 (sed/awk/tr over the payload line; read
 *   from git at c9893c9), for the ratio measured in the same run;
 * - a -p worker (spawn --non-interactive: claude's one rule denying every PermissionRequest left):
 *   Stop and PreToolUse (one grep, no umbel), a PermissionRequest (the face, no parser), against a
 *   worker with no policy at all (Stop: no policy.tsv).
 *
 *   npm run build && bun run bench/measure/policy-hook.ts [rounds=30]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compilePolicy, policyCommand } from "../../src/core/fleet/policy/compile.ts";
import { CLAUDE_POLICY, HOOK_POLICY } from "../../src/core/providers/hook-policy.ts";
import { UMBEL } from "../../test/helpers/sandbox.ts";
import { machine, ms, percentile } from "../lib/stats.ts";

const rounds = Number(process.argv[2] ?? 30);
const repo = join(import.meta.dir, "..", "..");
const dir = mkdtempSync(join(tmpdir(), "umbel-policy-bench-"));
const HOOK = join(repo, "hooks", "hook.sh");
const OLD_HOOK = join(dir, "old-hook.sh");
writeFileSync(
  OLD_HOOK,
  Bun.spawnSync(["git", "-C", repo, "show", "c9893c9:hooks/hook.sh"]).stdout.toString(),
);

const rules = { allow: ["Read", "Bash(git diff:*)"], deny: ["Bash(rm:*)"] };
function session(name: string): string {
  const at = join(dir, name);
  mkdirSync(join(at, "events"), { recursive: true });
  return at;
}
const now = session("now");
const compiled = compilePolicy(rules, HOOK_POLICY, "claude");
if (!compiled) throw new Error("no policy");
writeFileSync(join(now, "policy.json"), JSON.stringify(compiled.file));
writeFileSync(join(now, "policy.cmd"), policyCommand([UMBEL], now));
writeFileSync(join(now, "policy.tsv"), compiled.tsv);
// The policy.tsv of c9893c9's compilePolicy for the same deny rule (verdict, event, tool, kind, glob, marker, answer).
const old = session("old");
const answer = JSON.stringify(HOOK_POLICY.answer("deny", "PreToolUse", "denied by umbel policy: Bash(rm:*)"));
const marker = JSON.stringify({ decision: "deny", rule: "Bash(rm:*)" });
writeFileSync(
  join(old, "policy.tsv"),
  ["rm", "rm *"]
    .map((glob) => ["deny", "PreToolUse", "Bash", "cmd", glob, marker, answer].join("\t"))
    .join("\n"),
);

// A -p worker with no --allow/--deny: only the non-interactive rule (core/fleet/policy/compile.ts denyAsks).
const print = session("print");
const printPolicy = compilePolicy({ allow: [], deny: [] }, CLAUDE_POLICY, "claude", { denyAsks: true });
if (!printPolicy) throw new Error("no -p policy");
writeFileSync(join(print, "policy.json"), JSON.stringify(printPolicy.file));
writeFileSync(join(print, "policy.cmd"), policyCommand([UMBEL], print));
writeFileSync(join(print, "policy.tsv"), printPolicy.tsv);
const bare = session("bare");

const bash = {
  hook_event_name: "PreToolUse",
  tool_name: "Bash",
  tool_input: { command: "git diff --stat && ls -la src" },
};
const stop = { hook_event_name: "Stop", last_assistant_message: "done" };
const cases: [string, string, string, object][] = [
  ["no rule answers the event (Stop)", HOOK, now, stop],
  [
    "Grep at PreToolUse, no rule names it (no umbel)",
    HOOK,
    now,
    { hook_event_name: "PreToolUse", tool_name: "Grep", tool_input: { pattern: "x" } },
  ],
  [
    "Read at PermissionRequest (face, no parser)",
    HOOK,
    now,
    { hook_event_name: "PermissionRequest", tool_name: "Read", tool_input: { file_path: "/w/a" } },
  ],
  ["Bash at PreToolUse (face + tree-sitter-bash)", HOOK, now, bash],
  ["Bash at PreToolUse, hook.sh before issue 22", OLD_HOOK, old, bash],
  ["no policy at all (Stop)", HOOK, bare, stop],
  ["-p worker: Stop (one grep, no umbel)", HOOK, print, stop],
  ["-p worker: Bash at PreToolUse (one grep, no umbel)", HOOK, print, bash],
  [
    "-p worker: Write at PermissionRequest (face, denied)",
    HOOK,
    print,
    { hook_event_name: "PermissionRequest", tool_name: "Write", tool_input: { file_path: "/w/a" } },
  ],
];

console.log(`policy hook, ${rounds} rounds each — ${await machine()}`);
for (const [what, hook, at, payload] of cases) {
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    // No incarnation, and the event as each provider's hook command names it (an older hook.sh ignores both).
    const event = (payload as { hook_event_name: string }).hook_event_name;
    const child = Bun.spawn(["sh", hook, join(at, "events", "hooks.jsonl"), "", event], {
      stdin: new Blob([JSON.stringify(payload)]),
      stdout: "pipe",
    });
    await new Response(child.stdout).text();
    await child.exited;
    times.push(performance.now() - started);
  }
  console.log(
    `${what.padEnd(48)} min ${ms(Math.min(...times))}  p50 ${ms(percentile(times, 50))}  p90 ${ms(percentile(times, 90))}`,
  );
}
rmSync(dir, { recursive: true, force: true });
