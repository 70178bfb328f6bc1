import { expect } from "bun:test";
import { argsFromSchema, kebab } from "../../src/faces/cli/args.ts";
import { VERBS } from "../../src/faces/verbs/table.ts";

/**
 * The argv fuzz of issue 11, kept as a test: seeded cases over every verb, the print face (in its
 * three dialects: claude -p's flags, gemini -p's, and `umbel exec`'s codex exec flags), run, mcp
 * and the top level, mixing valid and invalid flags and values, -p in odd places, `--`, unicode,
 * huge numbers and empty strings. `checkCase` is the oracle every case must pass.
 */

export type FuzzCase = {
  readonly argv: readonly string[];
  /** stdin's text; null: stdin is a terminal. */
  readonly stdin: string | null;
};

export type CaseResult = {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** Agent CLI launches the case caused (the recorder's lines). */
  readonly launches: number;
  /** Worker directories left in the state root after the case. */
  readonly sessions: readonly string[];
};

/** The exit codes docs/cli-reference.md documents, but 70 (internal: a bug is never a pass). */
const DOCUMENTED = new Set([0, 1, 2, 3, 4, 5, 121, 122, 123, 124, 125, 126, 127, 130]);

/** The top-level words, as a user would type them; the oracle's own list (not faces/route.ts). */
const COMMANDS = [...VERBS.filter((v) => v.cli).map((v) => v.name), "exec", "run", "mcp", "help", "version"];

const NAMES = ["w1", "x", "a-b", "A", "bad name", "-a", "a".repeat(64), "..", "é", "", "w1\n"];
const DURATIONS = ["90s", "1h30m", "0", "1.5", "168h", "168h1ms", "99999999h", "2147484s", "1e400s"];
const MORE_DURATIONS = ["-1", "NaN", "Infinity", "9".repeat(400), "", " ", "10x", "1e3"];
const NUMBERS = ["0", "1", "3", "-1", "1.5", "1e3", "99999999999999999999", "NaN", "", " 1", "0x10"];
const WORDS = [
  "",
  " ",
  "\t",
  "hello",
  "fake:reply hi",
  "-",
  "--",
  "-p",
  "--print",
  "é",
  "😀",
  "日本語",
  "\u202e\u200b",
  "x".repeat(5000),
  "Enter",
  "C-c",
  "NoSuchKey",
  "F13",
  "{}",
  '{"a":1}',
  "[1]",
  "claude",
  "codex",
  "gemini",
  "opencode",
  "json",
  "stream-json",
  "text",
  "A=1",
  "=",
  "/nonexistent",
  ".",
  "$(touch pwned)",
  "'; rm -rf /",
  "\\",
  "%s%n",
  "\r\n",
  "bypassPermissions",
  "20250101-120000-a1b2c3",
];
const BOGUS = [
  "--bogus",
  "--bogus=1",
  "-z",
  "--Model",
  "--no-such",
  "---",
  "--=x",
  "-pp",
  "--json=1",
  "--print=1",
];
const PRINT_FLAGS = [
  "--output-format",
  "--input-format",
  "--verbose",
  "--model",
  "--allowedTools",
  "--permission-mode",
  "--append-system-prompt",
  "--max-turns",
  "-c",
  "--resume",
  "--provider",
  "--cwd",
  "--env",
  "--timeout",
  "--idle-timeout",
  "--name",
  "--settings",
  "--effort",
  "--json-schema",
  "--accept",
  "--max-attempts",
  "--accept-timeout",
];
/** gemini -p's flags (`umbel -p --dialect gemini`), a few it lacks, and umbel's own. */
const GEMINI_FLAGS = [
  "-p",
  "--prompt",
  "-m",
  "-o",
  "--output-format",
  "-y",
  "--approval-mode",
  "--include-directories",
  "--allowed-tools",
  "-r",
  "--skip-trust",
  "--sandbox",
  "--session-id",
  "--max-turns",
  "--provider",
  "--cwd",
  "--env",
  "--timeout",
  "--name",
  "--json-schema",
  "--accept",
];
const GEMINI_SWITCHES = ["-y", "--skip-trust", "--sandbox"];
/** codex exec's flags (`umbel exec`), a few it lacks, and umbel's own. */
const EXEC_FLAGS = [
  "--json",
  "-m",
  "-C",
  "--cd",
  "-s",
  "-o",
  "--output-schema",
  "--add-dir",
  "--color",
  "--skip-git-repo-check",
  "--dangerously-bypass-approvals-and-sandbox",
  "--full-auto",
  "--approve-for-me",
  "--last",
  "-c",
  "--ephemeral",
  "--output-format",
  "--provider",
  "--env",
  "--timeout",
  "--name",
  "--accept",
  "--dialect",
];
const EXEC_SWITCHES = [
  "--json",
  "--skip-git-repo-check",
  "--dangerously-bypass-approvals-and-sandbox",
  "--full-auto",
  "--approve-for-me",
  "--last",
  "--ephemeral",
];
const RUN_FLAGS = ["--dry-run", "--resume", "--max-parallel", "--schema", "--json", "--bogus"];

/** mulberry32: a small seeded PRNG, so every run fuzzes the same cases. */
function createRandom(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(list: readonly T[]): T => list[int(list.length)] as T;
  return { next, int, pick, chance: (p: number) => next() < p };
}
type Random = ReturnType<typeof createRandom>;

type Flag = { readonly flag: string; readonly kind: "switch" | "value"; readonly field: string };

/** Every verb's flags, from its schema, as the CLI face derives them. */
const VERB_FLAGS: Record<string, Flag[]> = Object.fromEntries(
  VERBS.filter((v) => v.cli).map((v) => {
    const defs = argsFromSchema(v.input, v.cli?.positionals ?? []);
    const flags = Object.entries(defs)
      .filter(([, def]) => def.type !== "positional")
      .map(
        ([key, def]): Flag => ({
          flag: `--${kebab(key)}`,
          kind: def.type === "boolean" ? "switch" : "value",
          field: key,
        }),
      );
    const aliases = Object.entries(v.cli?.aliases ?? {}).map(
      ([field, letter]): Flag => ({ flag: `-${letter}`, kind: "switch", field }),
    );
    return [v.name, [...flags, ...aliases, { flag: "--json", kind: "switch", field: "json" }]];
  }),
);

function valueFor(rnd: Random, field: string): string {
  if (/imeout/i.test(field)) return rnd.chance(0.7) ? rnd.pick(DURATIONS) : rnd.pick(MORE_DURATIONS);
  if (/after|lines|maxTurns|max-turns|maxAttempts|max-attempts|parallel/i.test(field))
    return rnd.pick(NUMBERS);
  if (field === "name" || field === "resume") return rnd.pick(NAMES);
  if (field === "provider") return rnd.pick(["claude", "codex", "gemini", "opencode", "", "CLAUDE"]);
  if (field === "approval-mode") return rnd.pick(["default", "auto_edit", "yolo", "plan", "manual", ""]);
  if (field === "s" || field === "sandbox")
    return rnd.pick(["read-only", "workspace-write", "danger-full-access", "open"]);
  if (field === "dialect") return rnd.pick(["claude", "gemini", "codex", "x", ""]);
  return rnd.pick(WORDS);
}

/** One odd token: a bogus flag, -p somewhere, `--`, a flag=value, or any word. */
function oddToken(rnd: Random): string[] {
  const r = rnd.int(6);
  if (r === 0) return [rnd.pick(BOGUS)];
  if (r === 1) return [rnd.pick(["-p", "--print"])];
  if (r === 2) return ["--"];
  if (r === 3) return [`--${rnd.pick(["timeout", "model", "name", "cwd"])}=${rnd.pick(WORDS)}`];
  return [rnd.pick(WORDS)];
}

function verbCase(rnd: Random, verb: string): string[] {
  const flags = VERB_FLAGS[verb] ?? [];
  const argv = [verb];
  if (rnd.chance(0.85)) argv.push(rnd.pick(NAMES));
  if (verb === "keys" || verb === "send") for (let i = rnd.int(3); i > 0; i--) argv.push(rnd.pick(WORDS));
  for (let i = rnd.int(5); i > 0; i--) {
    if (rnd.chance(0.6) && flags.length > 0) {
      const f = rnd.pick(flags);
      argv.push(f.flag);
      if (f.kind === "value" && rnd.chance(0.9)) argv.push(valueFor(rnd, f.field));
    } else argv.push(...oddToken(rnd));
  }
  return argv;
}

function printCase(rnd: Random): string[] {
  const argv: string[] = [];
  for (let i = rnd.int(4); i > 0; i--) {
    const flag = rnd.pick(PRINT_FLAGS);
    argv.push(flag);
    if (!["--verbose", "-c"].includes(flag) && rnd.chance(0.9))
      argv.push(valueFor(rnd, flag.replace(/^-+/, "")));
  }
  if (rnd.chance(0.3)) argv.push(...oddToken(rnd));
  // A valid -p starts a (recorded) launch, ~0.3 s each: most cases carry a flaw somewhere.
  if (rnd.chance(0.7))
    argv.push(rnd.pick([...BOGUS, "--timeout=99999999h", "--max-turns=0", "--provider=nope"]));
  argv.splice(rnd.int(argv.length + 1), 0, rnd.pick(["-p", "--print"]));
  if (rnd.chance(0.6)) argv.push(rnd.pick(WORDS));
  return argv;
}

/** Some flags of a dialect's list, each with a value unless it is a switch. */
function dialectFlags(rnd: Random, flags: readonly string[], switches: readonly string[]): string[] {
  const argv: string[] = [];
  for (let i = rnd.int(4); i > 0; i--) {
    const flag = rnd.pick(flags);
    argv.push(flag);
    if (!switches.includes(flag) && rnd.chance(0.9)) argv.push(valueFor(rnd, flag.replace(/^-+/, "")));
  }
  if (rnd.chance(0.3)) argv.push(...oddToken(rnd));
  // As printCase: most cases carry a flaw, so few start a (recorded) launch.
  if (rnd.chance(0.7)) argv.push(rnd.pick([...BOGUS, "--timeout=99999999h", "--provider=nope"]));
  return argv;
}

/** `umbel -p --dialect gemini …`, or gemini's own `--prompt`, or UMBEL_DIALECT's spelling of it. */
function geminiCase(rnd: Random): string[] {
  const argv = dialectFlags(rnd, GEMINI_FLAGS, GEMINI_SWITCHES);
  argv.splice(rnd.int(argv.length + 1), 0, rnd.pick(["-p", "--prompt"]));
  argv.splice(rnd.int(argv.length + 1), 0, "--dialect", rnd.pick(["gemini", "gemini", "codex", "nope", ""]));
  if (rnd.chance(0.6)) argv.push(rnd.pick(WORDS));
  return argv;
}

/** `umbel exec …` (sometimes `exec resume …`). */
function execCase(rnd: Random): string[] {
  const argv = [
    "exec",
    ...(rnd.chance(0.15) ? ["resume"] : []),
    ...dialectFlags(rnd, EXEC_FLAGS, EXEC_SWITCHES),
  ];
  if (rnd.chance(0.6)) argv.push(rnd.pick(WORDS));
  return argv;
}

function otherCase(rnd: Random): string[] {
  const r = rnd.int(8);
  if (r === 0)
    return [
      "run",
      ...Array.from({ length: rnd.int(4) }, () => (rnd.chance(0.5) ? rnd.pick(RUN_FLAGS) : rnd.pick(WORDS))),
    ];
  if (r === 1) return ["mcp", ...Array.from({ length: rnd.int(3) }, () => rnd.pick([...BOGUS, ...WORDS]))];
  if (r === 2) return [];
  if (r === 3) return [rnd.pick(["--help", "-h", "help", "--version", "-v", "version"]), ...oddToken(rnd)];
  if (r === 4) return [rnd.pick(WORDS), ...oddToken(rnd)];
  if (r === 5) return [rnd.pick(BOGUS), rnd.pick(WORDS)];
  if (r === 6) return [rnd.pick(WORDS), "--", rnd.pick(["-p", "--print"])];
  return [rnd.pick(COMMANDS), rnd.pick([...BOGUS, "-p", "--print", "--"]), ...oddToken(rnd)];
}

export function generateCases(seed: number, count: number): FuzzCase[] {
  const rnd = createRandom(seed);
  const verbs = Object.keys(VERB_FLAGS);
  return Array.from({ length: count }, (): FuzzCase => {
    const r = rnd.next();
    const argv =
      r < 0.62
        ? verbCase(rnd, rnd.pick(verbs))
        : r < 0.72
          ? printCase(rnd)
          : r < 0.77
            ? execCase(rnd)
            : r < 0.82
              ? geminiCase(rnd)
              : otherCase(rnd);
    const stdin = rnd.chance(0.2)
      ? null
      : rnd.pick(["", "hello\n", " \n\t\n", '{"type":"user","message":{"content":"hi"}}\n']);
    return { argv, stdin };
  });
}

/** Whether the case may launch the agent CLI: a spawn, or the print face (the oracle's own rule). */
export function mayLaunch(argv: readonly string[]): boolean {
  const first = argv[0];
  if (first === "spawn" || first === "exec") return true;
  if (first === undefined || COMMANDS.includes(first)) return false;
  const end = argv.indexOf("--");
  return (end === -1 ? argv : argv.slice(0, end)).some(
    (a) => a === "-p" || a === "--print" || a === "--prompt" || a.startsWith("--prompt="),
  );
}

/** The oracle: what must hold for every argv, valid or not. */
export function checkCase(c: FuzzCase, r: CaseResult): void {
  const at = { argv: c.argv, stdin: c.stdin, code: r.code, stderr: r.stderr.slice(0, 400) };
  const fail = (why: string) => expect({ ...at, why }).toEqual({ ...at, why: "" });
  if (/^\s+at .+[:(]\d+/m.test(r.stderr) || /please report|TimeoutOverflowWarning/i.test(r.stderr))
    fail("a stack trace or a bug report on stderr");
  if (!DOCUMENTED.has(r.code)) fail(`exit ${r.code} is not a documented code`);
  // A usage error says why in one line; a workflow file's problems are listed one per line after it.
  const oneLine = c.argv[0] === "run" ? /^umbel: [^\n]+\n(.+\n)*$/ : /^umbel: [^\n]+\n$/;
  if (r.code === 2 && !oneLine.test(r.stderr)) fail("a usage error is one line on stderr");
  if (r.code !== 0 && !r.stdout.split("\n").every((line) => line === "" || isJson(line)))
    fail("a failure printed something but JSON on stdout");
  if (r.code === 0 && wantsJson(c.argv) && !r.stdout.split("\n").every((line) => line === "" || isJson(line)))
    fail("--json printed something but JSON on stdout");
  if (r.launches > 0 && !(mayLaunch(c.argv) && (r.code === 1 || r.code === 125)))
    fail(`an agent CLI was launched ${r.launches} time(s)`);
  if (r.sessions.length > 0) fail(`worker(s) left behind: ${r.sessions.join(", ")}`);
}

/** A verb asked for --json (and not for its --help): every line it prints is JSON. */
function wantsJson(argv: readonly string[]): boolean {
  const end = argv.indexOf("--");
  const options = end === -1 ? argv : argv.slice(0, end);
  const verb = VERBS.some((v) => v.cli && v.name === argv[0]);
  return verb && options.includes("--json") && !options.includes("--help") && !options.includes("-h");
}

function isJson(line: string): boolean {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
}
