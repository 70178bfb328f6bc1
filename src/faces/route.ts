import { quoteArg } from "../core/common/quote.ts";
import { didYouMean } from "../core/common/suggest.ts";
import { UsageError } from "../core/errors.ts";
import { DRAIN_HOOK_COMMAND } from "../core/fleet/drain.ts";
import { POLICY_HOOK_COMMAND } from "../core/fleet/policy/compile.ts";
import { STRUCTURED_SERVER_COMMAND } from "../core/guard/tool.ts";

/**
 * Which face an argv selects, before any face is loaded. A first word that is a command selects it,
 * whatever follows (`umbel kill w1 --print` is kill's unknown flag, never a turn); `exec` is codex
 * exec's dialect of the print face. Otherwise -p, --print or gemini's --prompt before any `--`
 * selects the print face: claude -p takes flags and its prompt before -p (`umbel --model sonnet -p hi`).
 */
export type Route =
  | { readonly face: "print" }
  /** `command`: `umbel help X`, which shows what `umbel X --help` shows. */
  | { readonly face: "help"; readonly command?: string }
  | { readonly face: "version" }
  | { readonly face: "exec"; readonly rest: readonly string[] }
  | { readonly face: "run"; readonly rest: readonly string[] }
  | { readonly face: "mcp"; readonly rest: readonly string[] }
  | { readonly face: "acp"; readonly rest: readonly string[] }
  | { readonly face: "structured"; readonly rest: readonly string[] }
  | { readonly face: "policy"; readonly rest: readonly string[] }
  | { readonly face: "drain"; readonly rest: readonly string[] }
  | { readonly face: "verb"; readonly verb: string; readonly rest: readonly string[] };

/**
 * The verbs of faces/verbs/table.ts (kept here so `umbel -p` and `--version` load no verb; a unit
 * test holds the two lists equal), then the faces that are not verbs.
 */
const VERB_NAMES = [
  "spawn",
  "send",
  "wait",
  "answer",
  "read",
  "kill",
  "prune",
  "status",
  "ls",
  "capture",
  "logs",
  "keys",
  "attach",
  "doctor",
  "pool",
  "accounts",
  "hosts",
] as const;

/** Commands the CLI face answers that are not verbs of the table (generated from it). */
const CLI_ONLY = ["completion"] as const;

export const COMMANDS: readonly string[] = [
  ...VERB_NAMES,
  ...CLI_ONLY,
  "exec",
  "run",
  "mcp",
  "acp",
  "help",
  "version",
];

const HELP = new Set(["help", "--help", "-h"]);
const VERSION = new Set(["version", "--version", "-v"]);

/**
 * `--trace` anywhere before a `--` turns the UMBEL_TRACE timeline on (stderr) for this run; it is
 * taken out before any face reads the argv, so every verb and face accepts it.
 */
export function takeTraceFlag(argv: readonly string[]): { argv: string[]; trace: boolean } {
  const end = argv.indexOf("--") === -1 ? argv.length : argv.indexOf("--");
  const before = argv.slice(0, end);
  if (!before.includes("--trace")) return { argv: [...argv], trace: false };
  return { argv: [...before.filter((arg) => arg !== "--trace"), ...argv.slice(end)], trace: true };
}

export function routeArgv(argv: readonly string[]): Route {
  const [first, ...rest] = argv;
  if (first === undefined) throw new UsageError("no command given (see umbel --help)");
  // `umbel help VERB` is `umbel VERB --help` (and `help -p` is -p's); `umbel help` the overview.
  const topic = first === "help" ? rest[0] : undefined;
  if (topic === "-p" || topic === "--print") return { face: "help", command: topic };
  if (topic !== undefined && !topic.startsWith("-") && topic !== "help") {
    if (!COMMANDS.includes(topic)) throw unknownCommand(topic);
    return { face: "help", command: topic };
  }
  if (HELP.has(first)) return { face: "help" };
  if (VERSION.has(first)) return { face: "version" };
  if (first === "exec") return { face: "exec", rest };
  if (first === "run") return { face: "run", rest };
  if (first === "mcp") return { face: "mcp", rest };
  if (first === "acp") return { face: "acp", rest };
  // Hidden: a --structured worker's own StructuredOutput server, started by its CLI (never typed).
  if (first === STRUCTURED_SERVER_COMMAND) return { face: "structured", rest };
  // Hidden: a --allow/--deny worker's hook asking umbel to decide a tool call (never typed).
  if (first === POLICY_HOOK_COMMAND) return { face: "policy", rest };
  // Hidden: a worker's end-of-turn hook sending its next queued prompt (never typed).
  if (first === DRAIN_HOOK_COMMAND) return { face: "drain", rest };
  if ((VERB_NAMES as readonly string[]).includes(first) || (CLI_ONLY as readonly string[]).includes(first))
    return { face: "verb", verb: first, rest };
  const options = argv.indexOf("--") === -1 ? argv : argv.slice(0, argv.indexOf("--"));
  if (options.some((a) => a === "-p" || a === "--print" || a === "--prompt" || a.startsWith("--prompt=")))
    return { face: "print" };
  if (first.startsWith("-") && first !== "-")
    throw new UsageError(
      `unknown option ${quoteArg(first.split("=")[0] ?? first)}: give a command first, or -p (see umbel --help)`,
      {
        option: first,
      },
    );
  throw unknownCommand(first);
}

/** `unknown command: spwan; did you mean spawn? (see umbel --help)`. */
function unknownCommand(word: string): UsageError {
  return new UsageError(
    `unknown command: ${quoteArg(word)}${didYouMean(word, COMMANDS)} (see umbel --help)`,
    {
      command: word,
    },
  );
}
