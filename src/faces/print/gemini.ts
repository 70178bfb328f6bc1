import { EXIT } from "../../core/errors.ts";
import { parseGeminiArgs } from "./args-gemini.ts";
import { type PrintIo, runTurns } from "./flow.ts";
import HELP from "./help-gemini.md" with { type: "text" };
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
  const stdin = io.stdinIsTty ? "" : (await io.readStdin()).replace(/\n$/, "");
  const prompt = stdin !== "" && args.prompt !== "" ? `${stdin}\n\n${args.prompt}` : stdin || args.prompt;
  const input = await parseInput({ ...args.raw, prompt }, io);
  const now = () => new Date(io.deps.clock.now()).toISOString();
  return runTurns(io, input, [input.prompt], geminiRenderer(input, io, now));
}
