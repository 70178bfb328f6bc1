import { describe, expect, test } from "bun:test";
import { UsageError } from "../../../src/core/errors.ts";
import { describePlan } from "../../../src/core/workflow/describe.ts";
import { positionIssues } from "../../../src/core/workflow/positions.ts";
import { workflowJsonSchema } from "../../../src/core/workflow/schema.ts";
import { checkHosts, loadWorkflow } from "../../../src/core/workflow/validate.ts";

/** A workflow worker's `host:` (docs/workflows.md#a-worker-on-a-host): what is refused at load time. */

function problems(text: string): string[] {
  try {
    loadWorkflow(text, "wf.yaml");
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    const lines = (error as UsageError).message.split("\n");
    return lines.length === 1 ? lines : lines.slice(1);
  }
}

const TWO = `workers:
  here: {}
  far: { host: box, cwd: /srv/repo }
steps:
  - { id: a, run: here, prompt: p, outputs: { x: answer } }
  - { id: b, run: far, needs: [a], prompt: "{{ steps.a.outputs.x }}", outputs: { y: answer } }
`;

describe("a worker's host", () => {
  test("is a host name, kept as given; its cwd is the host's path, as is", () => {
    const { workflow } = loadWorkflow(TWO, "wf.yaml");
    expect(workflow.workers.far).toEqual({ host: "box", cwd: "/srv/repo" });
    expect(workflow.workers.here).toEqual({});
  });

  test("the JSON Schema has it", () => {
    const schema = workflowJsonSchema() as {
      properties: {
        workers: { additionalProperties: { properties: Record<string, { description?: string }> } };
      };
    };
    expect(schema.properties.workers.additionalProperties.properties.host?.description).toContain(
      "config.toml",
    );
  });

  test.each([
    [
      "host: Box",
      "wf.yaml:2:14: workers.w.host: a host name is 1-63 of a-z 0-9 - and starts with a letter or digit",
    ],
    [
      "host: box, cwd: ./repo",
      "wf.yaml:2:24: workers.w.cwd: ./repo is relative, but worker w runs on host box: its cwd is a path there, given absolute (or left out: the folder the host's umbel starts in)",
    ],
    [
      "host: box, cwd: ~/repo",
      "wf.yaml:2:24: workers.w.cwd: ~/repo is relative, but worker w runs on host box: its cwd is a path there, given absolute (or left out: the folder the host's umbel starts in)",
    ],
  ])("%s is refused where it is written", (fields, message) => {
    expect(problems(`workers:\n  w: { ${fields} }\nsteps: [{ id: s, run: w, prompt: p }]\n`)).toEqual([
      message,
    ]);
  });

  test("a file output of a host worker's step is refused: the file is on the host", () => {
    const text = `workers: { w: { host: box } }\nsteps:\n  - id: s\n    run: w\n    prompt: p\n    outputs: { o: "file:notes.md" }\n`;
    expect(problems(text)).toEqual([
      "wf.yaml:6:19: steps[0].outputs.o: file:notes.md is a file on host box (worker w runs there), which this umbel does not read: use answer, or structured with a schema",
    ]);
  });
});

describe("checkHosts: every host is one of config.toml's, before anything is spawned", () => {
  const loaded = loadWorkflow(TWO, "wf.yaml");
  test.each([
    [{ box: { ssh: "box" } }, []],
    [
      { bix: { ssh: "bix" } },
      ["wf.yaml:3:16: workers.far.host: no host box in config.toml (hosts: bix); did you mean bix?"],
    ],
    [
      undefined,
      ["wf.yaml:3:16: workers.far.host: no host box: config.toml declares no [hosts.NAME] (docs/hosts.md)"],
    ],
  ])("hosts %p", (hosts, expected) => {
    const issues = positionIssues(loaded.source, checkHosts(loaded.workflow, hosts));
    expect(issues.map((i) => `wf.yaml:${i.line}:${i.col}: ${i.path}: ${i.message}`)).toEqual(expected);
  });
});

describe("--dry-run shows the host", () => {
  test("a host worker: its host, its cwd as given (none: the host's own), its provider the host's default", () => {
    const loaded = loadWorkflow(
      `workers:\n  here: {}\n  far: { host: box }\n  near: { host: box, cwd: /srv, provider: codex }\nsteps:\n  - { id: a, run: here, prompt: p }\n  - { id: b, run: far, prompt: p }\n  - { id: c, run: near, prompt: p }\n`,
      "wf.yaml",
    );
    const plan = describePlan({ ...loaded, baseDir: "/work", env: {}, defaultProvider: "claude" });
    expect(plan.workers.here).toMatchObject({ provider: "claude", cwd: "/work" });
    expect(plan.workers.here?.host).toBeUndefined();
    expect(plan.workers.far).toMatchObject({
      host: "box",
      provider: "the host's default",
      cwd: "the host's default",
    });
    expect(plan.workers.near).toMatchObject({ host: "box", provider: "codex", cwd: "/srv" });
  });
});
