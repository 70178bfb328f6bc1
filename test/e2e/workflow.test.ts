import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSandbox, eventually, type Sandbox, UMBEL } from "../helpers/sandbox.ts";

// bun's 5 s default is too short on 2 loaded cores; a preload's default reaches only the first
// file of a run (bun 1.4.5), so each file declares its own (test/unit/structure.test.ts).
setDefaultTimeout(60_000);

/**
 * dist/umbel run: the face's argv, output modes, exit codes and a real SIGINT. Timeouts are explicit
 * (bun's default is 5 s, and a preload's setDefaultTimeout reaches only the first file).
 */

let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox();
});
afterAll(async () => {
  await sb.dispose();
});

const lines = (text: string) =>
  text
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe("umbel run without workers", () => {
  test("--schema prints the JSON Schema of the file", async () => {
    const r = await sb.umbel(["run", "--schema"]);
    expect(JSON.parse(r.stdout)).toMatchObject({ title: "umbel workflow", required: ["workers", "steps"] });
    expect(r.code).toBe(0);
  }, 60_000);

  test("an invalid file exits 2 naming file:line:col, as text and as JSON", async () => {
    writeFileSync(
      join(sb.work, "bad.yaml"),
      "workers: { a: {} }\nsteps:\n  - { id: s, run: b, prompt: p }\n",
    );
    const r = await sb.umbel(["run", "bad.yaml"]);
    expect(r.stderr).toBe('umbel: bad.yaml:3:19: steps[0].run: no worker "b" (workers: a)\n');
    expect(r.stdout).toBe("");
    expect(r.code).toBe(2);
    const j = await sb.umbel(["run", "bad.yaml", "--json"]);
    expect(JSON.parse(j.stdout).error).toMatchObject({
      code: "usage",
      exitCode: 2,
      data: { issues: [{ file: "bad.yaml", line: 3, col: 19, path: "steps[0].run" }] },
    });
    expect(j.code).toBe(2);
  }, 60_000);

  test("usage errors: no file, a file and --resume, an unknown flag", async () => {
    for (const args of [
      ["run"],
      ["run", "x.yaml", "--resume", "20250101-120000-a1b2c3"],
      ["run", "x.yaml", "--parallel", "2"],
    ]) {
      const r = await sb.umbel(args);
      expect(r.stderr).toStartWith("umbel: ");
      expect(r.code).toBe(2);
    }
    expect((await sb.umbel(["run", "--resume", "20250101-120000-a1b2c3"])).code).toBe(3);
  }, 60_000);

  test("hostile files exit 2 with file:line:col and no stack trace (the probes that exited 70)", async () => {
    const laughs = Array.from({ length: 9 }, (_, i) =>
      i === 0
        ? "  l0: &l0 [x, x, x, x, x, x, x, x, x]"
        : `  l${i}: &l${i} [${Array(9)
            .fill(`*l${i - 1}`)
            .join(", ")}]`,
    ).join("\n");
    const cases: [string, string, RegExp][] = [
      [
        "merge.yaml",
        "workers:\n  a: { <<: 5 }\nsteps: [{ id: s, run: a, prompt: p }]\n",
        /^merge\.yaml:2:12: .*a merge \(<<\)/,
      ],
      [
        "alias.yaml",
        "workers:\n  a: *nope\nsteps: [{ id: s, run: a, prompt: p }]\n",
        /^alias\.yaml:2:6: .*\*nope/,
      ],
      [
        "bomb.yaml",
        `workers:\n${laughs}\nsteps: [{ id: s, run: l0, prompt: p }]\n`,
        /^bomb\.yaml:\d+:\d+: .*more than 10000 nodes/,
      ],
      [
        "deep.yaml",
        `workers: ${"[".repeat(20_000)}${"]".repeat(20_000)}\n`,
        /^deep\.yaml:1:\d+: .*nested deeper than 32 levels/,
      ],
      [
        "escape.yaml",
        'workers: { a: {} }\nsteps:\n  - { id: s, run: a, prompt: p, outputs: { o: "file:../../../../etc/hostname" } }\n',
        /^escape\.yaml:3:47: steps\[0\]\.outputs\.o: file:\.\.\/.* is not inside the worker's cwd/,
      ],
      [
        "shadow",
        Array.from({ length: 20 }, (_, i) => `u${i}:$6$SALTSALT$${"h".repeat(86)}:19000:0:99999:7:::`).join(
          "\n",
        ),
        /^shadow:1:1: not a umbel workflow: /,
      ],
    ];
    for (const [name, text, expected] of cases) {
      writeFileSync(join(sb.work, name), text);
      const r = await sb.umbel(["run", name, "--dry-run"]);
      expect({ name, stderr: r.stderr }).toEqual({
        name,
        stderr: expect.stringMatching(new RegExp(`^umbel: ${expected.source.slice(1)}`)),
      });
      expect(r.stderr.split("\n").filter(Boolean)).toHaveLength(1);
      expect(r.stderr).not.toContain("SALTSALT");
      expect(r.stdout).toBe("");
      expect({ name, code: r.code }).toEqual({ name, code: 2 });
    }
  }, 60_000);

  test("--dry-run prints the plan and spawns nothing", async () => {
    writeFileSync(
      join(sb.work, "plan.yaml"),
      "workers: { w: {} }\nsteps:\n  - { id: a, run: w, prompt: 'hi {{ env.WHO }}' }\n  - { id: b, run: w, prompt: bye }\n",
    );
    const r = await sb.umbel(["run", "plan.yaml", "--dry-run"], { env: { WHO: "there" } });
    expect(r.stdout).toContain(
      "wave 1:\n  a on w\n    │ hi there\nwave 2:\n  b on w  (after a on w)\n    │ bye\n",
    );
    expect(r.code).toBe(0);
    expect((await sb.umbel(["ls", "--json"])).stdout).toBe("[]\n");
  }, 60_000);
});

describe("umbel run with a worker", () => {
  test("a new user's first run: the answer is on the screen, and no worker is left in ls", async () => {
    writeFileSync(
      join(sb.work, "hello.yaml"),
      `workers: { w: {} }
steps:
  - { id: pick, run: w, prompt: "fake:reply otter", outputs: { animal: answer } }
  - id: poem
    run: w
    needs: [pick]
    prompt: "fake:reply A poem about the {{ steps.pick.outputs.animal }}"
    outputs: { poem: answer }
`,
    );
    const r = await sb.umbel(["run", "hello.yaml"]);
    expect(r.stdout).toMatch(
      /^run \S+ done: 2\/2 steps done in .*\nstate: .*\n\npoem\.poem:\nA poem about the otter\n$/,
    );
    expect(r.code).toBe(0);
    expect((await sb.umbel(["ls", "--json"])).stdout).toBe("[]\n");

    const kept = await sb.umbel(["run", "hello.yaml", "--keep", "--json"]);
    expect(JSON.parse(kept.stdout.trim().split("\n").at(-1) ?? "")).toMatchObject({ status: "done" });
    expect(kept.code).toBe(0);
    const workers = JSON.parse((await sb.umbel(["ls", "--json"])).stdout) as { state: string }[];
    expect(workers.map((w) => w.state)).toEqual(["killed"]);
    expect((await sb.umbel(["prune"])).code).toBe(0);
  }, 60_000);

  test("--json lines; SIGINT stops cleanly (exit 130, workers killed); --resume finishes the rest", async () => {
    writeFileSync(
      join(sb.work, "hang.yaml"),
      `workers: { w: {} }
steps:
  - { id: greet, run: w, prompt: "fake:reply hello", outputs: { a: answer } }
  - { id: wait, run: w, needs: [greet], prompt: "{{ env.HANG }}", outputs: { b: answer } }
`,
    );
    const child = Bun.spawn([UMBEL, "run", "hang.yaml", "--json"], {
      cwd: sb.work,
      env: { ...sb.env, HANG: "fake:hang" },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    let out = "";
    const reading = (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of child.stdout) out += decoder.decode(chunk);
    })();
    await eventually(
      () => out.includes('"step":"wait","at"') && /"step":"wait"[^\n]*"status":"running"/.test(out),
      20_000,
      "the hanging step to run",
    );
    child.kill("SIGINT");
    expect(await child.exited).toBe(130);
    await reading;
    const events = lines(out);
    expect(events[0]).toMatchObject({ event: "run", steps: [{ id: "greet" }, { id: "wait" }] });
    const summary = events.at(-1) as { runId: string };
    expect(summary).toMatchObject({
      event: "summary",
      status: "interrupted",
      exitCode: 130,
      steps: { greet: "done", wait: "stopped" },
      outputs: { greet: { a: "hello" } },
    });
    const workers = JSON.parse((await sb.umbel(["ls", "--json"])).stdout) as { state: string }[];
    expect(workers.map((w) => w.state)).toEqual(["killed"]);

    const resumed = await sb.umbel(["run", "--resume", summary.runId, "--json"], {
      env: { HANG: "fake:reply later" },
    });
    const again = lines(resumed.stdout);
    expect(again.filter((e) => e.event === "step").map((e) => `${e.step}:${e.status}`)).toEqual([
      "wait:starting",
      "wait:running",
      "wait:done",
    ]);
    expect(again.at(-1)).toMatchObject({
      status: "done",
      exitCode: 0,
      outputs: { greet: { a: "hello" }, wait: { b: "later" } },
    });
    expect(resumed.code).toBe(0);
  }, 60_000);
});

describe("umbel run --resume goes on where each worker was", () => {
  const summaryOf = (stdout: string) => lines(stdout).at(-1) as Record<string, unknown> & { runId: string };

  test("a step that ends in input keeps its worker; after umbel answer, --resume continues that same turn", async () => {
    writeFileSync(
      join(sb.work, "ask.yaml"),
      `workers: { w: { permissionMode: manual } }
steps:
  - { id: ask, run: w, prompt: "fake:permission", outputs: { a: answer } }
  - { id: next, run: w, needs: [ask], prompt: "fake:history", outputs: { h: answer } }
`,
    );
    const first = await sb.umbel(["run", "ask.yaml", "--json"]);
    expect(first.code).toBe(126);
    const summary = summaryOf(first.stdout);
    const failure = summary.failure as { session: string; evidence: { inputId: string }; message: string };
    expect(summary).toMatchObject({ status: "failed", steps: { ask: "failed", next: "pending" } });
    expect(summary.waiting).toEqual([failure.session]);
    expect(failure.message).toContain(
      `\`umbel answer ${failure.session} allow --input-id ${failure.evidence.inputId}\``,
    );
    expect(failure.message).toContain(`\`umbel run --resume ${summary.runId}\` continues this turn`);
    expect(first.stderr).toContain(`worker ${failure.session} is kept`);
    const status = JSON.parse((await sb.umbel(["status", failure.session, "--json"])).stdout);
    expect(status).toMatchObject({ state: "needs-input", inputId: failure.evidence.inputId });

    const answered = await sb.umbel([
      "answer",
      failure.session,
      "allow",
      "--input-id",
      failure.evidence.inputId,
    ]);
    expect(answered.code).toBe(0);
    const resumed = await sb.umbel(["run", "--resume", summary.runId, "--json"]);
    expect(resumed.stderr).toContain(
      `umbel: resume: worker w: ${failure.session} is still running; it goes on with step ask's turn (not sent again)`,
    );
    const events = lines(resumed.stdout);
    expect(events[0]).toMatchObject({
      event: "run",
      resumed: [{ worker: "w", how: "kept", session: failure.session, continues: "ask" }],
    });
    // One earlier prompt in the conversation: fake:permission was not typed again.
    expect(summaryOf(resumed.stdout)).toMatchObject({
      status: "done",
      exitCode: 0,
      outputs: { ask: { a: "FAKE-APPROVED" }, next: { h: expect.stringMatching(/^HISTORY n=1 /) } },
    });
    expect(resumed.code).toBe(0);
  }, 90_000);

  test("a worker whose tmux is gone resumes its CLI's recorded conversation in a new worker, and says so", async () => {
    writeFileSync(
      join(sb.work, "two.yaml"),
      `workers: { w: {} }
steps:
  - { id: one, run: w, prompt: "fake:reply first", outputs: { a: answer } }
  - { id: two, run: w, needs: [one], prompt: "{{ env.STEP2 }}", outputs: { b: answer } }
`,
    );
    const first = await sb.umbel(["run", "two.yaml", "--json"], { env: { STEP2: "fake:error" } });
    expect(first.code).toBe(122);
    const summary = summaryOf(first.stdout);
    const session = (summary.failure as { session: string }).session;
    expect(JSON.parse((await sb.umbel(["status", session, "--json"])).stdout).state).toBe("killed");
    const sessionId = JSON.parse((await sb.umbel(["read", session, "--json"])).stdout).sessionId;

    const resumed = await sb.umbel(["run", "--resume", summary.runId, "--json"], {
      env: { STEP2: "fake:history" },
    });
    expect(resumed.stderr).toContain(
      `umbel: resume: worker w: a new session resumes ${session}'s conversation (${sessionId})`,
    );
    expect(lines(resumed.stdout)[0]).toMatchObject({
      resumed: [{ worker: "w", how: "resumed", session, providerSession: sessionId }],
    });
    // Both earlier prompts are in the resumed conversation.
    expect(summaryOf(resumed.stdout)).toMatchObject({
      status: "done",
      outputs: { one: { a: "first" }, two: { b: expect.stringMatching(/^HISTORY n=2 /) } },
    });
    expect(resumed.code).toBe(0);
  }, 90_000);

  test("a worker whose CLI's record of the conversation is gone (a new container's home) resumes as a new conversation, and says why", async () => {
    writeFileSync(
      join(sb.work, "two.yaml"),
      `workers: { w: {} }
steps:
  - { id: one, run: w, prompt: "fake:reply first", outputs: { a: answer } }
  - { id: two, run: w, needs: [one], prompt: "{{ env.STEP2 }}", outputs: { b: answer } }
`,
    );
    const first = await sb.umbel(["run", "two.yaml", "--json"], { env: { STEP2: "fake:error" } });
    expect(first.code).toBe(122);
    const summary = summaryOf(first.stdout);
    const session = (summary.failure as { session: string }).session;
    const { transcriptPath } = JSON.parse((await sb.umbel(["read", session, "--json"])).stdout);
    expect(existsSync(transcriptPath)).toBe(true);
    rmSync(transcriptPath);

    const resumed = await sb.umbel(["run", "--resume", summary.runId, "--json"], {
      env: { STEP2: "fake:history" },
    });
    const why = `its CLI's record of the conversation is gone (${transcriptPath}; was the CLI's home kept?)`;
    expect(resumed.stderr).toContain(`umbel: resume: worker w: a new conversation (${why})`);
    expect(lines(resumed.stdout)[0]).toMatchObject({
      resumed: [{ worker: "w", how: "fresh", session, why }],
    });
    expect(summaryOf(resumed.stdout)).toMatchObject({
      status: "done",
      outputs: { one: { a: "first" }, two: { b: expect.stringMatching(/^HISTORY n=0 /) } },
    });
    expect(resumed.code).toBe(0);
  }, 90_000);

  test.each([
    ["codex", "resumed", "HISTORY n=2 "],
    ["opencode", "resumed", "HISTORY n=2 "],
    // gemini keeps each worker's chats in its own GEMINI_CLI_HOME: a new worker cannot resume them.
    ["gemini", "fresh", "HISTORY n=0 "],
  ] as const)(
    "%s: a killed worker's conversation is %s on --resume",
    async (provider, how, history) => {
      mkdirSync(join(sb.dir, "home", ".gemini"), { recursive: true, mode: 0o700 });
      const env = { GEMINI_API_KEY: "fake-key" };
      writeFileSync(
        join(sb.work, `${provider}.yaml`),
        `workers: { w: { provider: ${provider} } }
steps:
  - { id: one, run: w, prompt: "fake:reply first", outputs: { a: answer } }
  - { id: two, run: w, needs: [one], prompt: "{{ env.STEP2 }}", outputs: { b: answer } }
`,
      );
      const first = await sb.umbel(["run", `${provider}.yaml`, "--json"], {
        env: { ...env, STEP2: "fake:error" },
      });
      expect(first.code).toBe(122);
      const resumed = await sb.umbel(["run", "--resume", summaryOf(first.stdout).runId, "--json"], {
        env: { ...env, STEP2: "fake:history" },
      });
      expect(lines(resumed.stdout)[0]).toMatchObject({ resumed: [{ worker: "w", how }] });
      expect(resumed.stderr).toContain("umbel: resume: worker w: ");
      expect(summaryOf(resumed.stdout)).toMatchObject({
        status: "done",
        outputs: { two: { b: expect.stringMatching(new RegExp(`^${history}`)) } },
      });
    },
    90_000,
  );
});
