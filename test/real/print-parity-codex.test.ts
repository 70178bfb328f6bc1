// `umbel exec --provider codex` against the real `codex exec` (0.171.0), both on the same stub model:
// for each mirrored flag the same event types, the same keys per event and item (recursively),
// values where they must agree, and exit codes. What umbel cannot fill from the interactive
// transcript is listed in docs/cli-reference.md ("codex exec compatibility"); the measurements are
// in docs/providers.md.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { createTmux, deriveSocket } from "../../src/adapters/tmux.ts";
import { type CodexWorld, codexEnv, seedCodexWorld, stubProviderToml } from "../helpers/codex-world.ts";
import { UMBEL } from "../helpers/sandbox.ts";
import { type StubModel, startStubModel } from "../stub-model/stub-model.ts";
import { expectSameShapes, type Json, jsonLines, limiter, type Run, runCli } from "./parity-run.ts";
import { requireRealCodex } from "./real-codex.ts";

const codex = requireRealCodex("test/real/print-parity-codex.test.ts");
const CONCURRENCY = 2;
// A test waits for its pair, which may queue behind others (the file takes ~1-2 min in all).
setDefaultTimeout(300_000);

/** `file`: what the prompt's tool would make in the run's folder. */
type Case = { args: string[]; stdin?: string; file?: string };
type Pair = { codex: Run; umbel: Run; dirs: { codex: string; umbel: string } };

const CASES = {
  plain: { args: ["parity text"] },
  json: { args: ["--json", "parity json"] },
  "a command": { args: ["--json", "stub:bash echo parity-tool"] },
  "a failed command": { args: ["--json", "stub:bash exit 3"] },
  "a file change": { args: ["--json", "-s", "workspace-write", "stub:write parity-w.txt hello"] },
  reasoning: { args: ["--json", "stub:thinking"] },
  "a failed turn": { args: ["--json", "-o", "$DIR/last.txt", "stub:error 401"] },
  "a failed turn, plain": { args: ["stub:error 401"] },
  "-o": { args: ["-o", "$DIR/last.txt", "parity last"] },
  "--output-schema": {
    args: ["--json", "--output-schema", "$SCHEMA", 'stub:tool StructuredOutput {"answer":"stub"}'],
  },
  "stdin and an argument": { args: ["--json", "parity argv"], stdin: "parity stdin" },
  "-m": { args: ["--json", "-m", "parity-model", "parity model"] },
  "-C": { args: ["--json", "-C", "$DIR/sub", "parity cd"] },
  "--bogus": { args: ["--bogus", "x"] },
  // Issue 21: codex exec never asks (approval: never) and runs in a read-only sandbox by default.
  "refused command": { args: ["--json", "stub:bash touch parity-refused"], file: "parity-refused" },
  "refused patch": { args: ["--json", "stub:write parity-refused.txt no"], file: "parity-refused.txt" },
  "allowed by -s workspace-write": {
    args: ["--json", "-s", "workspace-write", "stub:bash touch parity-ww"],
    file: "parity-ww",
  },
  "allowed by -s danger-full-access": {
    args: ["--json", "-s", "danger-full-access", "stub:bash touch parity-dfa"],
    file: "parity-dfa",
  },
} satisfies Record<string, Case>;

describe.skipIf(codex === null)("umbel exec against codex exec on the same stub", () => {
  let stub: StubModel;
  let root: string;
  let world: CodexWorld;
  let schema: string;
  const pairs = new Map<string, Promise<Pair>>();
  let resumed: Promise<{ codex: Run; umbel: Run; byId: Run }> = Promise.reject(new Error("not started"));
  resumed.catch(() => undefined);

  beforeAll(async () => {
    stub = await startStubModel({ dialect: "openai" });
    root = mkdtempSync(join(tmpdir(), "umbel-parity-codex-"));
    world = seedCodexWorld(root, stubProviderToml(stub.url));
    schema = join(root, "schema.json");
    const answer = { answer: { type: "string" } };
    writeFileSync(
      schema,
      JSON.stringify({
        type: "object",
        properties: answer,
        required: ["answer"],
        additionalProperties: false,
      }),
    );
    const limit = limiter(CONCURRENCY);
    resumed = limit(runResume);
    resumed.catch(() => undefined);
    for (const [label, c] of Object.entries(CASES) as [string, Case][])
      pairs.set(
        label,
        limit(() => runPair(label, c)),
      );
    for (const p of pairs.values()) p.catch(() => undefined);
  });
  afterAll(async () => {
    await Promise.allSettled([...pairs.values(), resumed]);
    await createTmux({ socket: deriveSocket(world.stateRoot, undefined), hostEnv: process.env })
      .killServer()
      .catch(() => undefined);
    await stub?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  function dir(label: string): string {
    const path = join(root, label.replace(/[^a-z0-9]+/gi, "-"));
    mkdirSync(path, { recursive: true });
    return path;
  }
  const codexAt = (cwd: string) => ({ cwd, env: codexEnv(world, world.userCodexHome) });
  const umbelAt = (cwd: string) => ({
    cwd,
    env: {
      ...codexEnv(world, world.userCodexHome),
      UMBEL_HOME: world.stateRoot,
      UMBEL_CODEX_BIN: codex ?? "codex",
    },
  });
  const viaCodex = (args: string[], cwd: string, stdin?: string) =>
    runCli([codex ?? "codex", "exec", "--skip-git-repo-check", ...args], codexAt(cwd), stdin);
  const viaUmbel = (args: string[], cwd: string, stdin?: string) =>
    runCli([UMBEL, "exec", "--provider", "codex", ...args], umbelAt(cwd), stdin);

  async function runPair(label: string, c: Case): Promise<Pair> {
    const dirs = { codex: dir(`${label}-codex`), umbel: dir(`${label}-umbel`) };
    for (const d of Object.values(dirs)) mkdirSync(join(d, "sub"));
    const args = (at: string) => c.args.map((a) => a.replace("$DIR", at).replace("$SCHEMA", schema));
    return {
      codex: await viaCodex(args(dirs.codex), dirs.codex, c.stdin),
      umbel: await viaUmbel(args(dirs.umbel), dirs.umbel, c.stdin),
      dirs,
    };
  }

  /** `exec resume --last` in a folder where one turn ran; umbel also by the thread id it printed. */
  async function runResume() {
    const [c, u] = [dir("resume-codex"), dir("resume-umbel")];
    await viaCodex(["parity resume codex one"], c);
    const ofCodex = await viaCodex(["--json", "resume", "--last", "parity resume codex two"], c);
    const first = jsonLines((await viaUmbel(["--json", "parity resume umbel one"], u)).stdout);
    const ofUmbel = await viaUmbel(["--json", "resume", "--last", "parity resume umbel two"], u);
    const byId = await viaUmbel(
      ["--json", "resume", String(first[0]?.thread_id), "parity resume umbel three"],
      u,
    );
    return { codex: ofCodex, umbel: ofUmbel, byId };
  }

  const pair = (label: keyof typeof CASES): Promise<Pair> =>
    pairs.get(label) ?? Promise.reject(new Error(`no case ${label}`));
  const requestsFor = (prompt: string) => stub.mainRequests().filter((r) => r.main?.prompt === prompt);

  test("plain: the final message on stdout, the same; exit 0", async () => {
    const { codex: c, umbel: u } = await pair("plain");
    expect(u.stdout).toBe(c.stdout);
    expect(u.code).toBe(c.code);
  });

  test.each([
    "json",
    "a command",
    "a failed command",
    "a file change",
    "reasoning",
    "--output-schema",
    "-m",
    "-C",
  ] as const)("%s: the same events and items, key by key", async (label) => {
    const { codex: c, umbel: u } = await pair(label);
    const [mine, real] = [jsonLines(u.stdout), withoutStubNotices(jsonLines(c.stdout))];
    expect(mine.map(kindOf)).toEqual(real.map(kindOf));
    expectSameShapes(mine, real);
    const items = (events: Json[]) =>
      events.filter((e) => e.type === "item.completed").map((e) => e.item as Json);
    const [ours, theirs] = [items(mine), items(real)];
    for (const [i, item] of theirs.entries()) {
      const one = ours[i] ?? {};
      // A tool's output quotes its wall time, so the stub's digest of it differs; an apply_patch
      // output names the run's own folder, so its length may too (129 vs 131 seen in CI).
      const digestless = (text: unknown) => String(text).replace(/ len=\d+ sha=[0-9a-f]+ /, " len=… sha=… ");
      if (item.type === "agent_message" || item.type === "reasoning")
        expect(digestless(one.text)).toBe(digestless(item.text));
      if (item.type === "command_execution")
        expect([one.aggregated_output, one.exit_code, one.status]).toEqual([
          item.aggregated_output,
          item.exit_code,
          item.status,
        ]);
      if (item.type === "file_change") {
        const changes = (x: Json) => (x.changes as Json[]).map((ch) => [basename(String(ch.path)), ch.kind]);
        expect(changes(one)).toEqual(changes(item));
        expect(one.status).toBe(item.status);
      }
    }
    expect(u.code).toBe(c.code);
  });

  test.each(["refused command", "refused patch"] as const)(
    "%s with no flag: run by neither (read-only, never asks); the model told the same; umbel prints the call as failed",
    async (label) => {
      const { codex: c, umbel: u, dirs } = await pair(label);
      const file = CASES[label].file;
      for (const d of [dirs.codex, dirs.umbel]) expect(existsSync(join(d, file))).toBe(false);
      const [mine, real] = [jsonLines(u.stdout), withoutStubNotices(jsonLines(c.stdout))];
      const message = (events: Json[]) =>
        events.flatMap((e) => {
          const item = e.item as Json | undefined;
          return e.type === "item.completed" && item?.type === "agent_message" ? [item.text] : [];
        });
      expect(message(mine)).toEqual(message(real));
      expect(String(message(mine)[0])).toStartWith("STUB-TOOL-RESULT");
      // codex exec prints no item for a call its sandbox or policy refused; umbel prints items as
      // the calls are seen, before their result says so (docs/cli-reference.md).
      const calls = mine.filter(
        (e) => e.type === "item.completed" && (e.item as Json).type !== "agent_message",
      );
      expect(calls.map((e) => (e.item as Json).status)).toEqual(["failed"]);
      expect(u.code).toBe(c.code);
    },
  );

  test.each(["allowed by -s workspace-write", "allowed by -s danger-full-access"] as const)(
    "%s: both run it",
    async (label) => {
      const { codex: c, umbel: u, dirs } = await pair(label);
      const file = CASES[label].file;
      for (const d of [dirs.codex, dirs.umbel]) expect(existsSync(join(d, file))).toBe(true);
      expect(jsonLines(u.stdout).map(kindOf)).toEqual(withoutStubNotices(jsonLines(c.stdout)).map(kindOf));
      expect(u.code).toBe(c.code);
    },
  );

  test("a failed turn: error and turn.failed with codex's message, exit 1; -o gets an empty file", async () => {
    const { codex: c, umbel: u, dirs } = await pair("a failed turn");
    const [mine, real] = [jsonLines(u.stdout), withoutStubNotices(jsonLines(c.stdout))];
    expect(mine.map(kindOf)).toEqual(real.map(kindOf));
    expectSameShapes(mine, real);
    const message = (events: Json[]) => String(events.at(-2)?.message).replace(/req_stub_\d+/, "req_stub_N");
    expect(message(mine)).toBe(message(real));
    expect([u.code, c.code]).toEqual([1, 1]);
    for (const d of [dirs.codex, dirs.umbel]) expect(readFileSync(join(d, "last.txt"), "utf8")).toBe("");
    const plain = await pair("a failed turn, plain");
    expect([plain.umbel.stdout, plain.codex.stdout]).toEqual(["", ""]);
    expect(plain.umbel.code).toBe(plain.codex.code);
  });

  test("-o: the final message in the file, as codex writes it", async () => {
    const { codex: c, umbel: u, dirs } = await pair("-o");
    expect(u.stdout).toBe(c.stdout);
    const [mine, real] = [dirs.umbel, dirs.codex].map((d) => readFileSync(join(d, "last.txt"), "utf8"));
    expect(mine).toBe(real);
    expect(mine).toStartWith("STUB-REPLY");
  });

  test("--output-schema: the final message is the object's JSON", async () => {
    const { codex: c, umbel: u } = await pair("--output-schema");
    const last = (run: Run) =>
      jsonLines(run.stdout).findLast((e) => e.type === "item.completed")?.item as Json;
    expect(last(u)).toMatchObject({ type: "agent_message", text: '{"answer":"stub"}' });
    expect(last(u)?.text).toBe(last(c)?.text);
  });

  test("the flags reached the model alike: stdin in its block after the argument, the model, -C's folder", async () => {
    await Promise.all([pair("stdin and an argument"), pair("-m"), pair("-C")]);
    expect(requestsFor("parity argv\n\n<stdin>\nparity stdin\n</stdin>")).toHaveLength(2);
    const models = requestsFor("parity model").map((r) => r.model);
    expect(models).toEqual(["parity-model", "parity-model"]);
    const { dirs } = await pair("-C");
    const cwds = requestsFor("parity cd").map((r) => /<cwd>([^<]*)<\/cwd>/.exec(r.main?.injected ?? "")?.[1]);
    expect(cwds.sort()).toEqual([join(dirs.codex, "sub"), join(dirs.umbel, "sub")].sort());
  });

  test("exec resume --last continues the folder's last conversation; resume ID the thread printed", async () => {
    const { codex: c, umbel: u, byId } = await resumed;
    expect(jsonLines(u.stdout).map(kindOf)).toEqual(withoutStubNotices(jsonLines(c.stdout)).map(kindOf));
    expect([u.code, c.code, byId.code]).toEqual([0, 0, 0]);
    expect(JSON.stringify(requestsFor("parity resume codex two")[0]?.body)).toContain(
      "parity resume codex one",
    );
    expect(JSON.stringify(requestsFor("parity resume umbel two")[0]?.body)).toContain(
      "parity resume umbel one",
    );
    expect(JSON.stringify(requestsFor("parity resume umbel three")[0]?.body)).toContain(
      "parity resume umbel two",
    );
  });

  test("a flag codex exec does not have: a usage error, exit 2 on both", async () => {
    const { codex: c, umbel: u } = await pair("--bogus");
    expect([u.code, c.code]).toEqual([2, 2]);
    expect(u.stderr).toBe("umbel: unknown option '--bogus' (see umbel exec --help)\n");
    expect(existsSync(UMBEL)).toBe(true);
  });
});

function kindOf(event: Json): string {
  const item = event.item as Json | undefined;
  return item ? `${event.type}:${item.type}` : String(event.type);
}

/**
 * codex exec prints an `error` item when it has no metadata for the model ("Model metadata for
 * `stub-model` not found"): the stub's model, not the turn. The TUI shows no such item.
 */
function withoutStubNotices(events: Json[]): Json[] {
  return events.filter(
    (e) => !(e.type === "item.completed" && /Model metadata for/.test(String((e.item as Json).message))),
  );
}
