// `umbel -p --dialect gemini --provider gemini` against the real `gemini -p` (0.61.0), both on the
// same stub model: for each mirrored flag the same keys (recursively), event types, values where
// they must agree, and exit codes. What umbel cannot fill from the interactive transcript is listed
// in docs/cli-reference.md ("gemini -p compatibility"); the measurements are in docs/providers.md.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { createTmux, deriveSocket } from "../../src/adapters/tmux.ts";
import { createGeminiWorld, type GeminiWorld, STUB_KEY } from "../helpers/gemini-world.ts";
import { UMBEL } from "../helpers/sandbox.ts";
import { type StubModel, startStubModel } from "../stub-model/stub-model.ts";
import {
  expectSameShape,
  expectSameShapes,
  type Json,
  jsonLines,
  limiter,
  type Run,
  runCli,
} from "./parity-run.ts";
import { requireRealGemini } from "./real-gemini.ts";

const gemini = requireRealGemini("test/real/print-parity-gemini.test.ts");
const MODEL = "gemini-2.5-flash";
/** Two pairs at once: a gemini TUI and a gemini -p each take a core while they start. */
const CONCURRENCY = 2;
// A test waits for its pair, which may queue behind others (the file takes ~2-3 min in all).
setDefaultTimeout(400_000);

/** `file`: what the prompt's tool would make in the work folder; whether each CLI made it is recorded. */
type Case = { args: string[]; stdin?: string; file?: string };
type Pair = { gemini: Run; umbel: Run; made: { gemini: boolean; umbel: boolean } };

const CASES = {
  text: { args: ["-p", "parity text"] },
  json: { args: ["-o", "json", "-p", "parity json"] },
  "stream-json": { args: ["-o", "stream-json", "-p", "parity stream"] },
  "tool json": { args: ["-o", "json", "-y", "-p", "stub:bash echo parity-tool"] },
  "tool stream-json": {
    args: ["-o", "stream-json", "--approval-mode", "yolo", "-p", "stub:bash echo parity-s"],
  },
  "--allowed-tools": {
    args: ["-o", "json", "--allowed-tools", "run_shell_command", "-p", "stub:bash echo parity-allowed"],
  },
  "API error text": { args: ["-p", "stub:error 400"] },
  "API error json": { args: ["-o", "json", "-p", "stub:error 400"] },
  "API error stream-json": { args: ["-o", "stream-json", "-p", "stub:error 400"] },
  "stdin and -p": { args: ["-p", "parity from the flag"], stdin: "parity from stdin" },
  "--include-directories": {
    args: ["--include-directories", "$EXTRA", "-o", "json", "-p", "parity include"],
  },
  // Issue 21: gemini -p leaves out the tools that would ask (default approval mode); so does umbel -p.
  "refused shell json": {
    args: ["-o", "json", "-p", "stub:bash touch parity-refused"],
    file: "parity-refused",
  },
  "refused write json": {
    args: ["-o", "json", "-p", "stub:write parity-refused.txt no"],
    file: "parity-refused.txt",
  },
  "refused stream-json": {
    args: ["-o", "stream-json", "-p", "stub:bash touch parity-refused-s"],
    file: "parity-refused-s",
  },
  "allowed by --yolo": {
    args: ["-o", "json", "-y", "-p", "stub:bash touch parity-yolo"],
    file: "parity-yolo",
  },
  "allowed by auto_edit": {
    args: ["-o", "json", "--approval-mode", "auto_edit", "-p", "stub:write parity-edit.txt yes"],
    file: "parity-edit.txt",
  },
} satisfies Record<string, Case>;

describe.skipIf(gemini === null)("umbel -p --dialect gemini against gemini -p on the same stub", () => {
  let stub: StubModel;
  let world: GeminiWorld;
  let extra: string;
  const pairs = new Map<string, Promise<Pair>>();
  const state = () => join(world.dir, "umbel-state");

  beforeAll(async () => {
    stub = await startStubModel({ dialect: "gemini" });
    world = await createGeminiWorld(gemini ?? "gemini", stub.url);
    extra = join(world.dir, "extra");
    mkdirSync(extra);
    mkdirSync(join(world.dir, "umbel-home"));
    const limit = limiter(CONCURRENCY);
    for (const [label, c] of Object.entries(CASES) as [string, Case][])
      pairs.set(
        label,
        limit(() => runPair(c)),
      );
    for (const p of pairs.values()) p.catch(() => undefined);
  });
  afterAll(async () => {
    await Promise.allSettled(pairs.values());
    await createTmux({ socket: deriveSocket(state(), undefined), hostEnv: process.env })
      .killServer()
      .catch(() => undefined);
    await world?.dispose();
    await stub?.stop();
  });

  async function runPair(c: Case): Promise<Pair> {
    const args = ["-m", MODEL, ...c.args.map((a) => (a === "$EXTRA" ? extra : a))];
    const file = c.file === undefined ? null : join(world.work, c.file);
    const made = () => {
      const there = file !== null && existsSync(file);
      if (file !== null) rmSync(file, { force: true });
      return there;
    };
    const ofGemini = await runCli(
      [gemini ?? "gemini", ...args],
      { cwd: world.work, env: world.env() },
      c.stdin,
    );
    const geminiMade = made();
    const umbelEnv = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: join(world.dir, "umbel-home"),
      TMPDIR: join(world.dir, "tmp"),
      LANG: "C.UTF-8",
      UMBEL_HOME: state(),
      UMBEL_GEMINI_BIN: gemini ?? "gemini",
      GEMINI_API_KEY: STUB_KEY,
      GOOGLE_GEMINI_BASE_URL: stub.url,
    };
    const ofUmbel = await runCli(
      [UMBEL, "-p", "--dialect", "gemini", "--provider", "gemini", ...args],
      { cwd: world.work, env: umbelEnv },
      c.stdin,
    );
    return { gemini: ofGemini, umbel: ofUmbel, made: { gemini: geminiMade, umbel: made() } };
  }

  const pair = (label: keyof typeof CASES): Promise<Pair> =>
    pairs.get(label) ?? Promise.reject(new Error(`no case ${label}`));
  const prompts = (prompt: string) => stub.mainRequests().filter((r) => r.main?.prompt === prompt);

  test("text: the same stdout and exit code", async () => {
    const { gemini: g, umbel: u } = await pair("text");
    expect(u.stdout).toBe(g.stdout);
    expect(u.code).toBe(g.code);
  });

  test.each(["json", "tool json", "--allowed-tools", "--include-directories"] as const)(
    "%s: gemini's object, key by key; the same response; pretty-printed with no newline after it",
    async (label) => {
      const { gemini: g, umbel: u } = await pair(label);
      const [mine, real] = [JSON.parse(u.stdout) as Json, JSON.parse(g.stdout) as Json];
      expectSameShape(mine, real, "$", ["models", "byName"]);
      const models = (o: Json) => Object.keys((o.stats as Json).models as Json);
      expect(models(mine)).toEqual(models(real));
      const tools = (o: Json) => ((o.stats as Json).tools as Json).totalCalls;
      expect(tools(mine)).toBe(tools(real));
      if (label === "json") expect(mine.response).toBe(real.response);
      expect(u.stdout.endsWith("}")).toBe(g.stdout.endsWith("}"));
      expect(u.code).toBe(g.code);
    },
  );

  test.each(["stream-json", "tool stream-json"] as const)(
    "%s: the same event types in order (deltas joined), the same keys per event",
    async (label) => {
      const { gemini: g, umbel: u } = await pair(label);
      const [mine, real] = [joinDeltas(jsonLines(u.stdout)), joinDeltas(jsonLines(g.stdout))];
      expect(mine.map((e) => e.type)).toEqual(real.map((e) => e.type));
      expectSameShapes(mine, real, ["models"]);
      const tool = (events: Json[]) => events.find((e) => e.type === "tool_result");
      if (label === "tool stream-json") {
        // What the model got for umbel's call: gemini's shell capture on a loaded machine once came
        // back empty (`Output: (empty)`); umbel prints what the tool returned, whichever it was.
        const id = String(tool(mine)?.tool_id);
        const seen = stub
          .mainRequests()
          .flatMap((r) => r.main?.toolResults ?? [])
          .find((t) => t.toolUseId === id || id.endsWith(`__${t.toolUseId}`))?.text;
        expect(seen).toBeString();
        const output = seen?.includes("Output: (empty)") ? "" : "parity-s";
        if (output === "") console.warn("gemini's shell captured no output for umbel's call:", seen);
        expect(tool(mine)).toMatchObject({ status: "success", output });
      }
      if (label === "stream-json") expect(mine[2]?.content).toBe(real[2]?.content);
      expect(u.code).toBe(g.code);
    },
  );

  test.each(["refused shell json", "refused write json"] as const)(
    "%s with no flag: neither offers the tool, so neither runs it; the same response and tool stats",
    async (label) => {
      const { gemini: g, umbel: u, made } = await pair(label);
      expect(made).toEqual({ gemini: false, umbel: false });
      const [mine, real] = [JSON.parse(u.stdout) as Json, JSON.parse(g.stdout) as Json];
      expectSameShape(mine, real, "$", ["models", "byName"]);
      // gemini -p keeps the answer's trailing blank (the stub's 40-character head ends in one).
      expect(String(mine.response)).toBe(String(real.response).trimEnd());
      expect(String(mine.response)).toContain("not found");
      const tools = (o: Json) => (o.stats as Json).tools as Json;
      const { totalDurationMs: _m, byName: mb, ...mineTools } = tools(mine);
      const { totalDurationMs: _r, byName: rb, ...realTools } = tools(real);
      expect(mineTools).toEqual(realTools);
      expect(Object.keys(mb as Json)).toEqual(Object.keys(rb as Json));
      expect(u.code).toBe(g.code);
    },
  );

  test("refused, in stream-json: the same events; the tool_result is gemini's tool_not_registered error", async () => {
    const { gemini: g, umbel: u, made } = await pair("refused stream-json");
    expect(made).toEqual({ gemini: false, umbel: false });
    const [mine, real] = [joinDeltas(jsonLines(u.stdout)), joinDeltas(jsonLines(g.stdout))];
    expect(mine.map((e) => e.type)).toEqual(real.map((e) => e.type));
    expectSameShapes(mine, real, ["models"]);
    const result = (events: Json[]) => {
      const { timestamp: _, tool_id: _id, ...rest } = events.find((e) => e.type === "tool_result") ?? {};
      return rest;
    };
    expect(result(mine)).toEqual(result(real));
    expect(result(mine)).toMatchObject({ status: "error", error: { type: "tool_not_registered" } });
    expect(u.code).toBe(g.code);
  });

  test.each(["allowed by --yolo", "allowed by auto_edit"] as const)("%s: both run it", async (label) => {
    const { gemini: g, umbel: u, made } = await pair(label);
    expect(made).toEqual({ gemini: true, umbel: true });
    const [mine, real] = [JSON.parse(u.stdout) as Json, JSON.parse(g.stdout) as Json];
    // A shell result names its process group, so the stub's digest of it differs.
    const digestless = (text: unknown) => String(text).replace(/ len=\d+ sha=[0-9a-f]+ /, " len=… sha=… ");
    expect(digestless(mine.response)).toBe(digestless(real.response));
    expect(u.code).toBe(g.code);
  });

  test("an API error: nothing on stdout; text exits 1", async () => {
    const { gemini: g, umbel: u } = await pair("API error text");
    expect([u.stdout, g.stdout]).toEqual(["", ""]);
    expect(u.code).toBe(g.code);
    expect(u.code).toBe(1);
  });

  test("an API error in json: the error object on stderr, its type, message and code; exit 400 % 256", async () => {
    const { gemini: g, umbel: u } = await pair("API error json");
    expect([u.stdout, g.stdout]).toEqual(["", ""]);
    const [mine, real] = [lastJson(u.stderr), lastJson(g.stderr)];
    expectSameShape(mine, real);
    expect(mine.error).toEqual(real.error);
    expect(u.code).toBe(g.code);
    expect(u.code).toBe(144);
  });

  test("an API error in stream-json: init, the prompt, an error result; exit 400 % 256", async () => {
    const { gemini: g, umbel: u } = await pair("API error stream-json");
    const [mine, real] = [jsonLines(u.stdout), jsonLines(g.stdout)];
    expect(mine.map((e) => e.type)).toEqual(real.map((e) => e.type));
    expectSameShapes(mine, real, ["models"]);
    expect(mine.at(-1)?.error).toEqual(real.at(-1)?.error);
    expect(u.code).toBe(g.code);
  });

  test("the flags reached the model alike: stdin before -p's value, the model, the extra folder", async () => {
    await Promise.all(pairs.values());
    const joined = prompts("parity from stdin\n\nparity from the flag");
    expect(joined).toHaveLength(2);
    for (const r of stub.mainRequests()) expect(r.path).toContain(`/models/${MODEL}:`);
    // The TUI sends the workspace listing in the prompt's own part: the stub reads it as the prompt.
    const included = stub.mainRequests().filter((r) => r.main?.prompt.endsWith("parity include"));
    expect(included).toHaveLength(2);
    for (const r of included) expect(JSON.stringify(r.body)).toContain(extra);
  });
});

/** gemini streams an answer as several `message` deltas; umbel prints each text block as one. */
function joinDeltas(events: Json[]): Json[] {
  const out: Json[] = [];
  for (const event of events) {
    const prior = out.at(-1);
    if (event.type === "message" && event.delta === true && prior?.type === "message" && prior.delta === true)
      out[out.length - 1] = { ...prior, content: `${prior.content}${event.content}` };
    else out.push(event);
  }
  return out;
}

/** The last JSON object on stderr (gemini writes its stack trace before it). */
function lastJson(stderr: string): Json {
  const at = stderr.lastIndexOf('{\n  "session_id"');
  if (at < 0) throw new Error(`no JSON error on stderr:\n${stderr}`);
  return JSON.parse(stderr.slice(at)) as Json;
}
