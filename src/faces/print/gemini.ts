import { EXIT } from "../../core/errors.ts";
import { parseGeminiArgs } from "./args-gemini.ts";
import { beginPrint, isAnonymous } from "./begin.ts";
import { runTurns } from "./flow.ts";
import HELP from "./help-gemini.md" with { type: "text" };
import type { PrintIo } from "./io.ts";
import { parseInput } from "./parse-input.ts";
import { geminiRenderer } from "./render-gemini.ts";

/**
 * `umbel -p --dialect gemini`: gemini -p through the interactive TUI. The prompt is stdin, then a
 * blank line, then `-p`'s value (or the positional words), as gemini joins them.
 */
export async function runGeminiPrint(argv: readonly string[], io: PrintIo): Promise<number> {
  const args = parseGeminiArgs(argv);
  if (args.help) {
    io.out(HELP);
    return EXIT.ok;
  }
  // stdin, and with a producer still writing it, an anonymous worker starting meanwhile (begin.ts).
  const begun = await beginPrint(io, isAnonymous(args.raw), (text) => {
    const stdin = text.replace(/\n$/, "");
    const prompt = stdin !== "" && args.prompt !== "" ? `${stdin}\n\n${args.prompt}` : stdin || args.prompt;
    return parseInput({ ...args.raw, prompt }, io, "gemini");
  });
  const now = () => new Date(io.deps.clock.now()).toISOString();
  return runTurns(io, begun.input, geminiRenderer(begun.input, io, now), begun);
}
