import { isAbsolute, resolve } from "node:path";
import { isRecord, parseJson } from "../../core/common/json.ts";
import { quoteArg } from "../../core/common/quote.ts";
import { EXIT, UsageError } from "../../core/errors.ts";
import { parseExecArgs } from "./args-codex.ts";
import { beginPrint, isAnonymous } from "./begin.ts";
import { runTurns } from "./flow.ts";
import HELP from "./help-exec.md" with { type: "text" };
import type { PrintIo } from "./io.ts";
import { parseInput } from "./parse-input.ts";
import { codexRenderer } from "./render-codex.ts";

/**
 * `umbel exec [PROMPT]` (and `umbel -p --dialect codex`): codex exec through the interactive TUI.
 * The prompt is the argument; `-` or none reads stdin; an argument and piped stdin are joined as
 * codex joins them (the stdin in a `<stdin>` block after a blank line).
 */
export async function runExec(argv: readonly string[], io: PrintIo): Promise<number> {
  const args = parseExecArgs(argv);
  if (args.help) {
    io.out(HELP);
    return EXIT.ok;
  }
  const jsonSchema =
    args.outputSchema === undefined ? undefined : await readSchemaFile(io, args.outputSchema);
  const given = args.prompt === "-" ? null : args.prompt;
  // stdin, and with a producer still writing it, an anonymous worker starting meanwhile (begin.ts).
  const begun = await beginPrint(io, isAnonymous(args.raw), (text) => {
    const stdin = text.replace(/\n$/, "");
    const prompt = given === null ? stdin : stdin === "" ? given : `${given}\n\n<stdin>\n${stdin}\n</stdin>`;
    return parseInput(
      { ...args.raw, prompt, ...(jsonSchema === undefined ? {} : { jsonSchema }) },
      io,
      "codex",
    );
  });
  const { input } = begun;
  const render = codexRenderer(
    { json: args.json, provider: input.provider, structured: input.jsonSchema !== undefined },
    io,
  );
  const code = await runTurns(io, input, render, begun);
  // codex writes the file at the end of the turn, an empty one when it failed (measured).
  if (args.outputLastMessage !== undefined)
    await io.deps.files.writeAtomic(here(io, args.outputLastMessage), render.lastMessage(), 0o644);
  return code;
}

/** --output-schema FILE: a JSON Schema in a file (codex takes a path only). */
async function readSchemaFile(io: PrintIo, value: string): Promise<Record<string, unknown>> {
  const path = here(io, value);
  const text = await io.deps.files.readText(path).catch((error: Error) => {
    throw new UsageError(`Failed to read output schema file ${quoteArg(path, 200)}: ${error.message}`, {
      path,
    });
  });
  if (text === null)
    throw new UsageError(`Failed to read output schema file ${quoteArg(path, 200)}: no such file`, { path });
  const schema = parseJson(text);
  if (!isRecord(schema))
    throw new UsageError(`Failed to parse output schema file ${quoteArg(path, 200)}: not a JSON object`, {
      path,
    });
  return schema;
}

function here(io: PrintIo, path: string): string {
  return isAbsolute(path) ? path : resolve(io.deps.cwd, path);
}
