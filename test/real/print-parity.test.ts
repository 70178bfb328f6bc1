// `umbel -p` against the real `claude -p` (2.1.332), both on the same stub model: for each mirrored
// flag, equal `result`, equal JSON keys, equal exit codes; values that must differ (durations, ids)
// are compared by type, and the values umbel cannot know from the TUI must be null. The pairs run
// concurrently (each in its own claude home and directory) to keep the file near a minute.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTmux, deriveSocket } from "../../src/adapters/tmux.ts";
import { UMBEL } from "../helpers/sandbox.ts";
import { type StubModel, startStubModel } from "../stub-model/stub-model.ts";
import type { StubRequest } from "../stub-model/types.ts";
import { claudeEnv, seedClaudeHome } from "./claude-home.ts";
import { requireRealClaude } from "./real-bin.ts";

const claude = requireRealClaude("test/real/print-parity.test.ts");
const API_KEY = "sk-ant-parity-0123456789abcdefghijklmnop";
/**
 * One `claude -p` or `umbel -p` run (a TUI start and a turn). Unloaded a run takes 3-10 s; on 2
 * cores at load 13-15, three at a time, runs went past the old 60 s limit (killed: exit 130). The
 * limit is for a hung run, not a slow one.
 */
const RUN_TIMEOUT_MS = 240_000;
/** The host has 2 cores here: more than 3 TUIs starting at once only queue on the CPU. */
const CONCURRENCY = 3;
// A test waits for its pair, which may queue behind every other (~64 runs, 3 at a time: 1-1.5 min
// unloaded, several minutes on a loaded CI); each run is bounded by RUN_TIMEOUT_MS itself.
setDefaultTimeout(900_000);

/**
 * Keys umbel fills with null by design: not in the interactive transcript (docs/cli-reference.md).
 * total_cost_usd is claude's own statusline cost now (issue 13): compared by type, as the TUI's
 * requests (system prompt, tools) differ from -p's.
 */
const NULL_IN_UMBEL = [
  "fast_mode_state",
  "fast_mode_disabled_reason",
  "subagent_stats",
  "safety_stops",
  "ttft_stream_ms",
  "first_content_frame_ms",
];
/** Keys whose values must be equal; every other key is compared by type. */
const EQUAL = [
  "type",
  "subtype",
  "is_error",
  "result",
  "num_turns",
  "stop_reason",
  "terminal_reason",
  "api_error_status",
  "api_error_type",
  "errors",
  "queued_turn_count",
  "result_index",
];

/** --json-schema's cases (measured on 2.1.332: docs/providers.md, "claude -p --json-schema"). */
const SCHEMA = JSON.stringify({
  type: "object",
  properties: { answer: { type: "string" } },
  required: ["answer"],
});
const BAD_CALL = 'stub:tool StructuredOutput {"answer":1}';
/** A recursive schema (issue 22): claude -p takes it; an invalid nested call is answered, then a valid one ends the run. */
const TREE = JSON.stringify({ type: "object", properties: { n: { $ref: "#" } } });

/** A run and how it went: its argv, and how long it took (`killed`: by RUN_TIMEOUT_MS). */
type Run = { code: number; stdout: string; stderr: string; argv: string[]; ms: number; killed: boolean };
type Json = Record<string, unknown>;
/** `file`: a file the prompt's tool would make in the work dir; whether each CLI made it is recorded. */
type Case = { args: string[]; stdin?: string; dirs?: string[]; file?: string };
type Pair = { claude: Run; umbel: Run; dirs: string[]; made: { claude: boolean; umbel: boolean } };
type Conversations = { cc: Run; uc: Run; first: Json; second: Json; third: Json; runs: Run[] };
type Warm = { again: Run; dead: Run; runs: Run[] };

const CASES = {
  text: { args: ["parity text"] },
  json: { args: ["parity json", "--output-format", "json"] },
  "json --verbose": { args: ["parity verbose", "--output-format", "json", "--verbose"] },
  "stream-json": {
    args: [
      "stub:bash echo parity-stream",
      "--output-format",
      "stream-json",
      "--verbose",
      "--permission-mode",
      "bypassPermissions",
    ],
  },
  "input stream-json": {
    args: ["--input-format", "stream-json", "--output-format", "stream-json", "--verbose"],
    stdin: ["parity input one", "parity input two"]
      .map((content) => JSON.stringify({ type: "user", message: { role: "user", content } }))
      .join("\n"),
  },
  "--model": { args: ["parity model", "--model", "claude-sonnet-5", "--output-format", "json"] },
  "--allowedTools": {
    args: ["stub:bash echo parity-allowed", "--allowedTools", "Bash", "--output-format", "json"],
  },
  "--disallowedTools": {
    args: ["stub:bash echo parity-disallowed", "--disallowedTools", "Bash", "--output-format", "json"],
  },
  "--permission-mode": {
    args: [
      "stub:bash echo parity-bypass",
      "--permission-mode",
      "bypassPermissions",
      "--output-format",
      "json",
    ],
  },
  "--permission-mode dontAsk": {
    args: ["stub:write parity-denied.txt no", "--permission-mode", "dontAsk", "--output-format", "json"],
  },
  "--append-system-prompt": {
    args: ["parity append", "--append-system-prompt", "PARITY-APPENDED", "--output-format", "json"],
  },
  "--system-prompt": {
    args: ["parity system", "--system-prompt", "PARITY-SYSTEM", "--output-format", "json"],
  },
  "--max-turns json": {
    args: [
      "stub:bash echo parity-turns",
      "--max-turns",
      "1",
      "--permission-mode",
      "bypassPermissions",
      "--output-format",
      "json",
    ],
  },
  "--max-turns text": {
    args: ["stub:bash echo parity-turns-text", "--max-turns", "1", "--permission-mode", "bypassPermissions"],
  },
  "--add-dir": {
    args: ["parity add-dir", "--add-dir", "$EXTRA", "--output-format", "json"],
    dirs: ["extra"],
  },
  "--settings": {
    args: [
      "stub:bash echo $PARITY_FROM_SETTINGS",
      "--settings",
      '{"env":{"PARITY_FROM_SETTINGS":"set-by-settings"}}',
      "--permission-mode",
      "bypassPermissions",
      "--output-format",
      "json",
    ],
  },
  "--mcp-config": { args: ["parity mcp", "--mcp-config", '{"mcpServers":{}}', "--output-format", "json"] },
  "API error": { args: ["stub:error 500", "--output-format", "json"] },
  "--json-schema": {
    args: ['stub:tool StructuredOutput {"answer":"yes"}', "--json-schema", SCHEMA, "--output-format", "json"],
  },
  "--json-schema text": { args: ['stub:tool StructuredOutput {"answer":"text"}', "--json-schema", SCHEMA] },
  "--json-schema invalid then valid": {
    args: [
      `${BAD_CALL} stub:tool StructuredOutput {"answer":"ok"}`,
      "--json-schema",
      SCHEMA,
      "--output-format",
      "json",
    ],
  },
  "--json-schema no call": {
    args: ["parity no structured call", "--json-schema", SCHEMA, "--output-format", "json"],
  },
  "--json-schema retries": {
    args: [Array(5).fill(BAD_CALL).join(" "), "--json-schema", SCHEMA, "--output-format", "json"],
  },
  "--json-schema recursive": {
    args: [
      'stub:tool StructuredOutput {"n":{"n":3}} stub:tool StructuredOutput {"n":{"n":{}}}',
      "--json-schema",
      TREE,
      "--output-format",
      "json",
    ],
  },
  "--max-budget-usd json": {
    args: ["parity budget", "--max-budget-usd", "0.0000001", "--output-format", "json"],
  },
  "--max-budget-usd text": { args: ["parity budget text", "--max-budget-usd", "0.0000001"] },
  // Issue 21: with no permission flag, what claude -p refuses (it never asks) umbel -p refuses too.
  "refused Bash": {
    args: ["stub:bash touch parity-refused", "--output-format", "json"],
    file: "parity-refused",
  },
  "refused Write": {
    args: ["stub:write parity-refused.txt no", "--output-format", "json"],
    file: "parity-refused.txt",
  },
  "refused stream-json": {
    args: ["stub:bash touch parity-refused-s", "--output-format", "stream-json", "--verbose"],
    file: "parity-refused-s",
  },
  "allowed by default": { args: ["stub:bash echo parity-default", "--output-format", "json"] },
  "allowed by --allowedTools": {
    args: ["stub:bash touch parity-allowed-f", "--allowedTools", "Bash", "--output-format", "json"],
    file: "parity-allowed-f",
  },
  "allowed by acceptEdits": {
    args: ["stub:write parity-edits.txt yes", "--permission-mode", "acceptEdits", "--output-format", "json"],
    file: "parity-edits.txt",
  },
} satisfies Record<string, Case>;

describe.skipIf(claude === null)("umbel -p against claude -p on the same stub", () => {
  let stub: StubModel;
  let root: string;
  const state = () => join(root, "umbel-state");
  const pairs = new Map<string, Promise<Pair>>();
  // Assigned in beforeAll; a test awaits what its task returns.
  let conversations: Promise<Conversations> = Promise.reject(new Error("not started"));
  let warm: Promise<Warm> = Promise.reject(new Error("not started"));
  conversations.catch(() => undefined);
  warm.catch(() => undefined);

  beforeAll(async () => {
    stub = await startStubModel({ dialect: "anthropic" });
    root = mkdtempSync(join(tmpdir(), "umbel-parity-"));
    transcriptsUnder = root;
    const limit = limiter(CONCURRENCY);
    // The sequences are the longest: they start first.
    conversations = limit(runConversations);
    warm = limit(runWarm);
    for (const [label, c] of Object.entries(CASES) as [string, Case][])
      pairs.set(
        label,
        limit(() => runPair(label, c)),
      );
    for (const p of [...pairs.values(), conversations, warm]) p.catch(() => undefined);
  });
  afterAll(async () => {
    await Promise.allSettled([...pairs.values(), conversations, warm]);
    // Where the time went: a slow CI run shows which runs took it (UMBEL_TRACE=/abs/file says why).
    const slowest = [...runs].sort((a, b) => b.ms - a.ms).slice(0, 5);
    console.log(
      `[timing] ${runs.length} runs; slowest: ${slowest.map((r) => `${r.argv.slice(0, 3).join(" ")} ${r.ms} ms`).join(" · ")}`,
    );
    await createTmux({ socket: deriveSocket(state(), undefined), hostEnv: process.env })
      .killServer()
      .catch(() => undefined);
    await stub.stop();
    rmSync(root, { recursive: true, force: true });
  });

  /** A claude home and a working directory of its own (plus named extra folders, untrusted). */
  function place(label: string, extra: string[] = []) {
    const dir = join(root, label.replace(/[^a-z0-9]+/gi, "-"));
    const work = join(dir, "work");
    mkdirSync(work, { recursive: true });
    const dirs = extra.map((name) => join(dir, name));
    for (const d of dirs) mkdirSync(d, { recursive: true });
    const home = seedClaudeHome(join(dir, "claude"), { apiKey: API_KEY, trustedDirs: [work] });
    const env = claudeEnv(home, { baseUrl: stub.url, apiKey: API_KEY, sandbox: true });
    // UMBEL_TRACE=/abs/file: every umbel -p run appends its timeline there (where a slow run went).
    const trace = process.env.UMBEL_TRACE ? { UMBEL_TRACE: process.env.UMBEL_TRACE } : {};
    return {
      work,
      dirs,
      env: { ...env, ...trace, UMBEL_HOME: state(), UMBEL_CLAUDE_BIN: claude ?? "claude" },
    };
  }

  /** Every run, for the timing line at the end. */
  const runs: Run[] = [];

  async function run(
    bin: string,
    args: string[],
    at: { work: string; env: Record<string, string> },
    stdin?: string,
  ): Promise<Run> {
    const started = performance.now();
    const child = Bun.spawn([bin, ...args], {
      cwd: at.work,
      env: at.env,
      stdin: stdin === undefined ? "ignore" : new Blob([stdin]),
      stdout: "pipe",
      stderr: "pipe",
      timeout: RUN_TIMEOUT_MS,
    });
    const [stdout, stderr, code] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ]);
    const ms = Math.round(performance.now() - started);
    const argv = [bin === UMBEL ? "umbel" : "claude", ...args];
    const done: Run = { code, stdout, stderr, argv, ms, killed: ms >= RUN_TIMEOUT_MS };
    runs.push(done);
    return done;
  }

  const viaClaude = (args: string[], at: ReturnType<typeof place>, stdin?: string) =>
    run(claude ?? "claude", ["-p", ...args], at, stdin);
  const viaUmbel = (args: string[], at: ReturnType<typeof place>, stdin?: string) =>
    run(UMBEL, ["-p", ...args, "--env", "ANTHROPIC_API_KEY"], at, stdin);

  async function runPair(label: string, c: Case): Promise<Pair> {
    const at = place(label, c.dirs);
    const args = c.args.map((a) => (a === "$EXTRA" ? (at.dirs[0] ?? a) : a));
    const file = c.file === undefined ? null : join(at.work, c.file);
    const made = () => {
      const there = file !== null && existsSync(file);
      if (file !== null) rmSync(file, { force: true });
      return there;
    };
    const ofClaude = await viaClaude(args, at, c.stdin);
    const claudeMade = made();
    const ofUmbel = await viaUmbel(args, at, c.stdin);
    return { claude: ofClaude, umbel: ofUmbel, dirs: at.dirs, made: { claude: claudeMade, umbel: made() } };
  }

  /** A sequence's runs, each kept so a failure shows them all. */
  async function runConversations(): Promise<Conversations> {
    const seq: Run[] = [];
    const keep = async (r: Promise<Run>) => {
      seq.push(await r);
      return seq.at(-1) as Run;
    };
    const c = place("continue-claude");
    const u = place("continue-umbel");
    await keep(viaClaude(["parity continue claude one"], c));
    const cc = await keep(viaClaude(["parity continue claude two", "-c"], c));
    await keep(viaUmbel(["parity continue umbel one"], u));
    const uc = await keep(viaUmbel(["parity continue umbel two", "-c"], u));
    const x = place("resume-across");
    const first = parse(await keep(viaClaude(["parity resume one", "--output-format", "json"], x)), seq);
    const second = parse(
      await keep(
        viaUmbel(["parity resume two", "--resume", String(first.session_id), "--output-format", "json"], x),
      ),
      seq,
    );
    const third = parse(
      await keep(
        viaClaude(
          ["parity resume three", "--resume", String(second.session_id), "--output-format", "json"],
          x,
        ),
      ),
      seq,
    );
    return { cc, uc, first, second, third, runs: seq };
  }

  async function runWarm(): Promise<Warm> {
    const w = place("warm");
    const one = await viaUmbel(["parity warm one", "--name", "parity-warm"], w);
    const again = await viaUmbel(["parity warm two", "--name", "parity-warm"], w);
    const kill = await run(UMBEL, ["kill", "parity-warm"], w);
    const dead = await viaUmbel(["parity warm three", "--name", "parity-warm", "--output-format", "json"], w);
    await run(UMBEL, ["kill", "parity-warm", "--purge"], w);
    return { again, dead, runs: [one, again, kill, dead] };
  }

  const pair = (label: string): Promise<Pair> =>
    pairs.get(label) ?? Promise.reject(new Error(`no case ${label}`));

  const requestsFor = (prompt: string): StubRequest[] =>
    stub.mainRequests().filter((r) => r.main?.trigger === "prompt" && r.main.prompt === prompt);

  // Every check shows the runs it read when it fails (argv, exit, time, stdout, stderr): a CI log is
  // often all there is to read.
  test("text: the same stdout and exit code", async () => {
    const { claude: c, umbel: u } = await pair("text");
    showing([c, u], () => {
      expect(u.stdout).toBe(c.stdout);
      expect(u.code).toBe(c.code);
    });
  });

  test("json: claude's keys, equal result", async () => {
    const { claude: c, umbel: u } = await pair("json");
    showing([c, u], () => {
      compareResults(parse(c), parse(u));
      expect(u.code).toBe(c.code);
    });
  });

  test("json --verbose: the same message types in the same order", async () => {
    const { claude: c, umbel: u } = await pair("json --verbose");
    showing([c, u], () => {
      const [ca, ua] = [JSON.parse(c.stdout) as Json[], JSON.parse(u.stdout) as Json[]];
      expect(kinds(ua)).toEqual(kinds(ca));
      compareResults(ca.at(-1) ?? {}, ua.at(-1) ?? {});
    });
  });

  test("stream-json: line types in order, claude's keys per line", async () => {
    const { claude: c, umbel: u } = await pair("stream-json");
    showing([c, u], () => {
      compareStreams(lines(c.stdout), lines(u.stdout));
      expect(u.code).toBe(c.code);
    });
  });

  test("--input-format stream-json: a turn per message, results in order", async () => {
    const { claude: c, umbel: u } = await pair("input stream-json");
    showing([c, u], () => {
      compareStreams(lines(c.stdout), lines(u.stdout));
      expect(u.code).toBe(c.code);
      // The second message's request carries the first turn: one conversation.
      for (const r of requestsFor("parity input two"))
        expect(JSON.stringify(r.body)).toContain("parity input one");
    });
  });

  test.each([
    "--model",
    "--allowedTools",
    "--disallowedTools",
    "--permission-mode",
    "--permission-mode dontAsk",
    "--append-system-prompt",
    "--system-prompt",
    "--max-turns json",
    "--add-dir",
    "--settings",
    "--mcp-config",
    "API error",
    "--json-schema",
    "--json-schema invalid then valid",
    "--json-schema no call",
    "--json-schema retries",
    "--max-budget-usd json",
  ])("%s: equal result, keys and exit code", async (label) => {
    const { claude: c, umbel: u } = await pair(label);
    showing([c, u], () => {
      compareResults(parse(c), parse(u));
      expect(u.code).toBe(c.code);
    });
  });

  test("the flags' effects reached the model through both", async () => {
    await Promise.all(pairs.values());
    const read = ["--model", "--append-system-prompt", "--system-prompt", "--add-dir"];
    const used = await Promise.all(
      [...read, "--permission-mode dontAsk", "--settings"].map((label) => pair(label)),
    );
    showing(
      used.flatMap((p) => [p.claude, p.umbel]),
      () => {
        const both = (prompt: string) => {
          const found = requestsFor(prompt);
          // Both runs' requests, named by the prompt when one is missing.
          expect({ prompt, both: found.length >= 2 }).toEqual({ prompt, both: true });
          return found;
        };
        for (const r of both("parity model")) expect(r.model).toBe("claude-sonnet-5");
        for (const r of both("parity append")) expect(JSON.stringify(r.body)).toContain("PARITY-APPENDED");
        for (const r of both("parity system"))
          expect(JSON.stringify((r.body as Json).system)).toContain("PARITY-SYSTEM");
        const extra = used[3]?.dirs[0] ?? "";
        for (const r of both("parity add-dir")) expect(JSON.stringify(r.body)).toContain(extra);
        const denied = parse(used[4]?.umbel ?? missingRun);
        expect(denied.permission_denials).toEqual([
          { tool_name: "Write", tool_use_id: expect.any(String), tool_input: expect.any(Object) },
        ]);
        const settings = parse(used[5]?.umbel ?? missingRun);
        expect(settings.result).toContain(`len=${"set-by-settings".length} `);
      },
    );
  });

  test.each(["refused Bash", "refused Write"])(
    "%s with no permission flag: not run by either, the denial reported claude -p's way, the model goes on",
    async (label) => {
      const { claude: c, umbel: u, made } = await pair(label);
      showing([c, u], () => {
        expect(made).toEqual({ claude: false, umbel: false });
        const [cr, ur] = [parse(c), parse(u)];
        // claude -p's message names the path or command (not in the hook's payload): the model's
        // echo of it differs, the rest is the same.
        compareResults(cr, ur, ["result"]);
        for (const r of [cr, ur]) expect(String(r.result)).toStartWith("STUB-TOOL-RESULT is_error=true ");
        const denial = (r: Json) =>
          (r.permission_denials as Json[]).map(({ tool_use_id: _, ...rest }) => rest);
        expect(denial(ur)).toEqual(denial(cr));
        expect(denial(ur)).toHaveLength(1);
        expect(u.code).toBe(c.code);
      });
    },
  );

  test("refused, in stream-json: init says default, then claude -p's permission_denied line", async () => {
    const { claude: c, umbel: u, made } = await pair("refused stream-json");
    showing([c, u], () => {
      expect(made).toEqual({ claude: false, umbel: false });
      const [cl, ul] = [lines(c.stdout), lines(u.stdout)];
      expect(kinds(ul)).toEqual(kinds(cl));
      expect(kinds(ul)).toEqual(["init", "assistant", "system", "user", "assistant", "result"]);
      expect([ul[0]?.permissionMode, cl[0]?.permissionMode]).toEqual(["default", "default"]);
      expect(Object.keys(ul[2] ?? {}).sort()).toEqual(Object.keys(cl[2] ?? {}).sort());
      expect(ul[2]).toMatchObject({ subtype: "permission_denied", tool_name: "Bash" });
      expect(u.code).toBe(c.code);
    });
  });

  test.each(["allowed by default", "allowed by --allowedTools", "allowed by acceptEdits"])(
    "%s: both run it",
    async (label) => {
      const { claude: c, umbel: u, made } = await pair(label);
      showing([c, u], () => {
        compareResults(parse(c), parse(u));
        expect(parse(u).permission_denials).toEqual([]);
        if (label !== "allowed by default") expect(made).toEqual({ claude: true, umbel: true });
        expect(u.code).toBe(c.code);
      });
    },
  );

  test("--json-schema: the structured result as claude's", async () => {
    const { claude: c, umbel: u } = await pair("--json-schema text");
    const [schema, noCall, retried] = await Promise.all(
      ["--json-schema", "--json-schema no call", "--json-schema retries"].map((label) => pair(label)),
    );
    showing([c, u, schema?.umbel, noCall?.claude, noCall?.umbel, retried?.umbel], () => {
      expect(u.stdout).toBe(c.stdout);
      expect(u.stdout).toBe('{"answer":"text"}\n');
      expect(parse(schema?.umbel ?? missingRun)).toMatchObject({ structured_output: { answer: "yes" } });
      // After a turn without the call, claude -p sends one enforce message; umbel sends the same turn.
      const enforce =
        "[structured-output-enforce] You MUST call the StructuredOutput tool to complete this request. Call this tool now.";
      expect(requestsFor(enforce)).toHaveLength(2);
      expect(parse(retried?.umbel ?? missingRun).errors).toEqual([
        "Failed to provide valid structured output after 5 attempts — last StructuredOutput error: Output does not match required schema: /answer: must be string",
      ]);
    });
  });

  test("--json-schema with a recursive $ref: taken by both, the nested mismatch answered, the same object", async () => {
    const { claude: c, umbel: u } = await pair("--json-schema recursive");
    expect(parse(c)).toMatchObject({ subtype: "success", structured_output: { n: { n: {} } } });
    expect(parse(u)).toMatchObject({ subtype: "success", structured_output: { n: { n: {} } } });
    // The first call ({"n":{"n":3}}) was refused by both: the run ended with the second.
    expect(u.code).toBe(c.code);
  });

  test("--max-budget-usd in text mode: claude's line on stdout, exit 1", async () => {
    const { claude: c, umbel: u } = await pair("--max-budget-usd text");
    showing([c, u], () => {
      expect(u.stdout).toBe(c.stdout);
      expect(u.stdout).toBe("Error: Exceeded USD budget (1e-7)");
      expect(u.code).toBe(c.code);
    });
  });

  test("--max-turns in text mode: claude's line on stdout, exit 1", async () => {
    const { claude: c, umbel: u } = await pair("--max-turns text");
    showing([c, u], () => {
      expect(u.stdout).toBe(c.stdout);
      expect(u.stdout).toBe("Error: Reached max turns (1)");
      expect(u.code).toBe(c.code);
    });
  });

  test("--continue and --resume <session id>, across claude -p and umbel -p", async () => {
    const { cc, uc, second, third, first, runs: seq } = await conversations;
    showing(seq, () => {
      expect([uc.code, cc.code]).toEqual([0, 0]);
      for (const r of requestsFor("parity continue claude two"))
        expect(JSON.stringify(r.body)).toContain("claude one");
      for (const r of requestsFor("parity continue umbel two"))
        expect(JSON.stringify(r.body)).toContain("umbel one");
      // A session begun by claude -p, continued by umbel -p, then by claude -p again: one conversation.
      expect([second.session_id, third.session_id]).toEqual([first.session_id, first.session_id]);
      expect(JSON.stringify(requestsFor("parity resume two")[0]?.body)).toContain("parity resume one");
      expect(JSON.stringify(requestsFor("parity resume three")[0]?.body)).toContain("parity resume two");
    });
  });

  test("a warm --name worker remembers; once dead it is reported with its evidence", async () => {
    const { again, dead, runs: seq } = await warm;
    showing(seq, () => {
      expect(again.code).toBe(0);
      expect(JSON.stringify(requestsFor("parity warm two")[0]?.body)).toContain("parity warm one");
      expect(parse(dead)).toMatchObject({ is_error: true, umbel: { outcome: "dead", exitCode: 125 } });
      expect(dead.code).toBe(125);
    });
  });
});

const missingRun: Run = { code: -1, stdout: "", stderr: "(no such run)", argv: [], ms: 0, killed: false };

/** A run as a failure shows it: its argv, exit, time (and whether the limit killed it), its output. */
function describeRun(r: Run): string {
  const how = r.killed ? `killed by the test's ${RUN_TIMEOUT_MS / 1000} s limit` : `exit ${r.code}`;
  return `--- ${r.argv.join(" ")}\n${how} after ${r.ms} ms\nstdout: ${r.stdout}\nstderr: ${r.stderr}${structuredCalls(r)}`;
}

/** Where this file's claude homes are (each run's transcript stays there until the file ends). */
let transcriptsUnder = "";

/**
 * A failed run's StructuredOutput calls as its claude transcript has them (each tool_use and the
 * answer it got): the --json-schema retries race (a call umbel's server never recorded) shows here.
 */
function structuredCalls(r: Run): string {
  const session = /"session_id":"([0-9a-f-]{36})"/.exec(r.stdout)?.[1];
  if (!session || !transcriptsUnder) return "";
  const found = Bun.spawnSync(["find", transcriptsUnder, "-name", `${session}.jsonl`])
    .stdout.toString()
    .trim();
  const file = found.split("\n")[0];
  if (!file || !existsSync(file)) return "";
  const lines = readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.includes("StructuredOutput") || l.includes("tool_result"))
    .map((l) => l.slice(0, 600));
  return `\ntranscript ${file} (StructuredOutput and tool_result lines):\n${lines.join("\n")}`;
}

/** Runs the checks; a failure carries every run they read. */
function showing(runs: readonly (Run | undefined)[], check: () => void): void {
  try {
    check();
  } catch (error) {
    const shown = runs.filter((r): r is Run => r !== undefined).map(describeRun);
    throw new Error(`${String(error)}\n${shown.join("\n")}`);
  }
}

function compareResults(c: Json, u: Json, typeOnly: readonly string[] = []): void {
  const { umbel, ...ours } = u;
  expect(umbel).toBeObject();
  expect(Object.keys(ours).sort()).toEqual(Object.keys(c).sort());
  for (const key of Object.keys(c)) {
    if (EQUAL.includes(key) && !typeOnly.includes(key))
      expect({ key, value: ours[key] }).toEqual({ key, value: c[key] });
    else if (NULL_IN_UMBEL.includes(key)) expect({ key, value: ours[key] }).toEqual({ key, value: null });
    else expect({ key, type: typeOf(ours[key]) }).toEqual({ key, type: typeOf(c[key]) });
  }
  expect(Object.keys(ours.usage as Json).sort()).toEqual(Object.keys(c.usage as Json).sort());
  expect((ours.permission_denials as unknown[]).length).toBe((c.permission_denials as unknown[]).length);
}

function compareStreams(c: Json[], u: Json[]): void {
  expect(kinds(u)).toEqual(kinds(c));
  c.forEach((line, i) => {
    const mine = u[i] ?? {};
    if (line.type === "result") compareResults(line, mine);
    else if (line.subtype === "init")
      for (const key of Object.keys(mine)) expect(Object.keys(line)).toContain(key);
    else expect(Object.keys(mine).sort()).toEqual(Object.keys(line).sort());
  });
}

/** The run's JSON; none: an error showing it (and the runs before it in its sequence). */
function parse(run: Run, before: readonly Run[] = []): Json {
  try {
    return JSON.parse(run.stdout) as Json;
  } catch {
    const shown = [...before.filter((r) => r !== run), run].map(describeRun);
    throw new Error(`no JSON from ${run.argv.join(" ")}:\n${shown.join("\n")}`);
  }
}

function lines(stdout: string): Json[] {
  return stdout
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l) as Json);
}

function kinds(messages: Json[]): string[] {
  return messages.map((m) => (m.subtype === "init" ? "init" : String(m.type)));
}

function typeOf(value: unknown): string {
  return value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
}

/** Runs at most n of the tasks at once. */
function limiter(n: number) {
  let active = 0;
  const queue: (() => void)[] = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (active >= n) await new Promise<void>((resolve) => queue.push(resolve));
    active++;
    try {
      return await task();
    } finally {
      active--;
      queue.shift()?.();
    }
  };
}
