import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { formatError, toExitCode } from "../../../src/core/errors.ts";
import { runWorkflowFace } from "../../../src/faces/workflow/run.ts";
import { createFakeWorld } from "../../helpers/fake-deps.ts";
import { seeded } from "../../helpers/seeded.ts";
import { MUTATIONS } from "../../helpers/yaml-mutations.ts";

/**
 * Seeded mutations of the examples and the test workflows through `umbel run FILE --dry-run` (the
 * face, the runner's validation and the plan, on in-memory deps). Each must end as exit 0 with a
 * plan, or exit 2 with every line `file:line:col: …`: never 70, never a stack trace, and never more
 * of the file than a short excerpt (issue 11, items 13 and 18).
 */

const EXAMPLES = join(import.meta.dir, "..", "..", "..", "examples");
const SEEDS = [
  ...readdirSync(EXAMPLES)
    .filter((f) => f.endsWith(".yaml"))
    .map((f) => readFileSync(join(EXAMPLES, f), "utf8")),
  `workers:
  reviewer: { provider: claude, model: sonnet, cwd: ., unattended: true }
  fixer:    { cwd: .., env: { TOKEN: { fromEnv: FIX_TOKEN }, MODE: fast }, allowedTools: [Edit] }
  base: &base { model: haiku }
  third: { <<: *base, permissionMode: plan }
steps:
  - id: review
    run: reviewer
    prompt: "Review PR {{ env.PR }} and write the findings to review.md"
    timeout: 10m
    outputs: { findings: file:review.md, summary: answer }
  - id: fix
    run: fixer
    needs: [review]
    idleTimeout: 90s
    fresh: true
    prompt: |
      Apply these findings:
      {{ steps.review.outputs.findings }}
  - { id: last, run: third, needs: [fix], prompt: done }
`,
  'workers: { a: {}, b: { cwd: . } }\nsteps:\n  - { id: x, run: a, prompt: hi, outputs: { o: answer } }\n  - { id: y, run: b, needs: [x], prompt: "{{ steps.x.outputs.o }}" }\n',
];
const COUNT = 300;
const FILE = "wf/w.yaml";
const LINE = /^wf\/w\.yaml:\d+:\d+: /;
const HEADER = /^wf\/w\.yaml is not valid \(\d+ problems(; the first \d+ follow)?\)$/;
const MORE = /^… and \d+ more problems? not shown$/;

async function dryRun(text: string): Promise<{ code: number; out: string; message: string }> {
  const world = createFakeWorld({ env: { PATH: "/usr/bin", TOPIC: "src", PR: "7", FIX_TOKEN: "t" } });
  world.dirs.add("/work/wf");
  world.files.set(`/work/${FILE}`, text);
  let out = "";
  const io = { deps: world.deps, out: (s: string) => (out += s), err: () => undefined, stdoutIsTty: false };
  try {
    return { code: await runWorkflowFace([FILE, "--dry-run"], io), out, message: "" };
  } catch (error) {
    return { code: toExitCode(error), out, message: formatError(error) };
  }
}

/** Windows of 81 characters from every long line of the file: none may appear in an error. */
function longExcerpts(text: string): string[] {
  return text
    .split("\n")
    .filter((l) => l.length > 80)
    .flatMap((l) => [
      l.slice(0, 81),
      l.slice(Math.floor(l.length / 2) - 40, Math.floor(l.length / 2) + 41),
      l.slice(-81),
    ]);
}

test(`${COUNT} seeded mutations: a plan, or exit 2 naming file:line:col, never 70 or a stack trace`, async () => {
  const r = seeded(11_13_18);
  const tally = { ok: 0, usage: 0 };
  for (let i = 0; i < COUNT; i++) {
    const mutation = MUTATIONS[i % MUTATIONS.length] ?? MUTATIONS[0];
    let text = r.pick(SEEDS);
    // One to three mutations, the first cycling through every kind.
    for (let k = 0, n = 1 + r.int(3); k < n; k++)
      text = (k === 0 ? mutation : r.pick(MUTATIONS))?.apply(text, r) ?? text;
    const result = await dryRun(text);
    const where = `#${i} ${mutation?.name}: ${result.message.slice(0, 300)}`;
    expect({ where, code: result.code === 0 || result.code === 2 }).toEqual({ where, code: true });
    if (result.code === 0) {
      tally.ok++;
      expect(result.out).toContain("wave 1");
      continue;
    }
    tally.usage++;
    expect(result.message).toStartWith("umbel: ");
    const lines = result.message.slice("umbel: ".length).split("\n");
    for (const line of lines)
      expect({ where, line }).toEqual({
        where,
        line: expect.stringMatching(
          lines.length === 1 ? LINE : new RegExp(`${LINE.source}|${HEADER.source}|${MORE.source}`),
        ),
      });
    expect(result.message).not.toMatch(/\n\s+at |call stack|RangeError|TypeError|please report/);
    expect(result.message.length).toBeLessThan(22 * 320);
    for (const excerpt of longExcerpts(text))
      expect({ where, quoted: result.message.includes(excerpt) }).toEqual({ where, quoted: false });
  }
  expect(tally.ok).toBeGreaterThan(10);
  expect(tally.usage).toBeGreaterThan(150);
}, 120_000);
