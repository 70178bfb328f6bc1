import { resolve } from "node:path";
import { quoteArg } from "../../core/common/quote.ts";
import { DIALECT_ENV, takeDialect } from "../../core/dialects/dialect.ts";
import { EXIT, UsageError } from "../../core/errors.ts";
import { type PrintInput, parseStreamInput } from "../../core/print/input.ts";
import { getProvider } from "../../core/providers/registry.ts";
import { isJsonObjectText } from "../../core/schemas.ts";
import { readJsonOrFile } from "../../operations/worker/json-or-file.ts";
import { parsePrintArgs } from "./args.ts";
import { beginPrint, isAnonymous } from "./begin.ts";
import { runExec } from "./exec.ts";
import { runTurns } from "./flow.ts";
import { runGeminiPrint } from "./gemini.ts";
import HELP from "./help.md" with { type: "text" };
import { REMOTE_PRINT_ARGV, runPrintFromEnvelope, runPrintOnHost, takeHostFlag } from "./host.ts";
import type { PrintIo } from "./io.ts";
import { parseInput } from "./parse-input.ts";
import { claudeRenderer } from "./render-claude.ts";

/**
 * `umbel -p [PROMPT]`: a vendor's non-interactive mode through the interactive TUI, in the dialect
 * `--dialect` (or UMBEL_DIALECT) names: claude -p (the default, below), gemini -p (gemini.ts) or
 * codex exec (exec.ts, also `umbel exec`). The dialect is only the flags and the printing; every
 * provider's turn prints in every dialect.
 */
export async function runPrint(
  argv: readonly string[],
  io: PrintIo & { readonly face?: "print" | "exec" },
): Promise<number> {
  const exec = io.face === "exec";
  if (!exec && argv.length === 2 && argv.every((a, i) => a === REMOTE_PRINT_ARGV[i]))
    return runPrintFromEnvelope(io, (given, remoteIo, face) => runPrint(given, { ...remoteIo, face }));
  const { host, argv: local } = takeHostFlag(argv);
  if (host !== null && exec) return runPrintOnHost(io, host, local, "exec");
  if (host !== null) {
    // The dialect UMBEL_DIALECT chose here is the one the host's -p speaks.
    const dialect = io.deps.env[DIALECT_ENV];
    const named = local.some((a) => a === "--dialect" || a.startsWith("--dialect="));
    return runPrintOnHost(io, host, dialect && !named ? ["--dialect", dialect, ...local] : local);
  }
  const { dialect, argv: rest } = takeDialect(argv, exec ? "codex" : io.deps.env[DIALECT_ENV]);
  if (exec && dialect !== "codex")
    throw new UsageError(
      `umbel exec is codex exec's dialect; for ${dialect}'s, use umbel -p --dialect ${dialect}`,
    );
  if (exec) return runExec(rest, io);
  if (dialect === "gemini") return runGeminiPrint(rest, io);
  // codex exec's own -p is --profile: here -p/--print only chose the print face.
  if (dialect === "codex") return runExec(withoutPrintSwitch(rest), io);
  const args = parsePrintArgs(rest);
  if (args.help) {
    io.out(HELP);
    return EXIT.ok;
  }
  // `umbel --model -p hi`: the face was chosen for a -p that an option took as its value.
  if (!args.print)
    throw new UsageError("no -p/--print flag: an option took it as its value (see umbel -p --help)");
  // stdin, and with a producer still writing it, an anonymous worker starting meanwhile (begin.ts).
  const begun = await beginPrint(
    io,
    isAnonymous(args.raw),
    (stdin) => readInput(args, io, stdin),
    (input) => (input.inputFormat === "stream-json" ? parseStreamInput(input.prompt) : [input.prompt]),
  );
  const { input } = begun;
  return runTurns(
    io,
    input,
    claudeRenderer(input, io, () => io.deps.clock.now()),
    begun,
  );
}

/**
 * stream-json's assistant messages and --max-turns come from following the transcript turn by turn
 * (Provider.trackTurn); a provider without it would get text and json only.
 */
function refuseUntracked(input: PrintInput): void {
  const provider = getProvider(input.provider);
  if (provider.trackTurn) return;
  if (input.outputFormat === "stream-json")
    throw new UsageError(`--output-format stream-json is not supported with --provider ${provider.id}`);
  if (input.maxTurns !== undefined)
    throw new UsageError(`--max-turns is not supported with --provider ${provider.id}`);
}

async function readInput(
  args: ReturnType<typeof parsePrintArgs>,
  io: PrintIo,
  stdin: string,
): Promise<PrintInput> {
  const streamInput = args.raw.inputFormat === "stream-json";
  if (streamInput && args.argvPrompt !== "")
    throw new UsageError("a prompt argument cannot be combined with --input-format stream-json");
  const prompt = streamInput
    ? stdin
    : [args.argvPrompt, stdin.replace(/\n$/, "")].filter((p) => p !== "").join("\n");
  const raw: Record<string, unknown> = { ...args.raw, prompt };
  if (args.settings !== undefined) raw.settings = await readSettings(io, args.settings, args.raw.cwd);
  const input = await parseInput(raw, io, "claude");
  refuseUntracked(input);
  return input;
}

/** claude's --settings: JSON text, or else a file path (resolved where the worker runs). */
async function readSettings(io: PrintIo, value: string, cwd: unknown): Promise<string> {
  const here = io.deps.cwd;
  const { path, text } = await readJsonOrFile(
    io.deps.files,
    value,
    typeof cwd === "string" ? resolve(here, cwd) : here,
  );
  if (path === null) return value;
  if (text === null) throw new UsageError(`Settings file not found: ${quoteArg(path, 200)}`, { path });
  if (!isJsonObjectText(text))
    throw new UsageError(`--settings ${quoteArg(path, 200)}: not a JSON object`, { path });
  return text;
}

function withoutPrintSwitch(argv: readonly string[]): string[] {
  const end = argv.indexOf("--");
  const options = end === -1 ? argv : argv.slice(0, end);
  return [...options.filter((a) => a !== "-p" && a !== "--print"), ...(end === -1 ? [] : argv.slice(end))];
}
