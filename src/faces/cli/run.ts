import { runCommand } from "citty";
import pkg from "../../../package.json" with { type: "json" };
import { UsageError } from "../../core/errors.ts";
import { asksForHelp, refuseFlagLikeValues } from "./args.ts";
import { argsOfVerb, type CliIo, commandOfVerb, unknownVerb } from "./commands.ts";
import { runStdinJson } from "./stdin-json.ts";
import { renderVerbHelp } from "./verb-help.ts";
import { loadVerb } from "./verb-module.ts";

/** Help read through a pipe (`| less`, a file) wraps to this. */
const DEFAULT_COLUMNS = 80;

/** Runs one verb through citty inside main's error boundary (never runMain: it exits by itself). */
export async function runCli(command: string, rest: string[], io: CliIo): Promise<number> {
  if (command === "completion") {
    // Loaded only for it: the scripts and the workflow schema cost every other verb ~3 ms.
    const { runCompletion } = await import("./completion/run.ts");
    return runCompletion(rest, pkg.version, io.out);
  }
  // Only the verb run is loaded (its module, not the whole table: verb-module.ts).
  const verb = await loadVerb(command);
  if (verb) io.deps.trace.mark(`verb ${command} loaded`);
  const cmd = verb ? commandOfVerb(verb) : null;
  if (!cmd) return unknownVerb(command);
  // Another umbel's call over ssh (docs/hosts.md): the input is on stdin, not on argv.
  if (verb?.cli && rest[0] === "--stdin-json") return runStdinJson(verb, rest.slice(1), io);
  // `spawn w --base -h` asks for a spawn, not for help: refused before -h is read as a flag.
  if (verb?.cli) refuseFlagLikeValues(rest, argsOfVerb(verb, verb.cli));
  if (verb && asksForHelp(rest)) {
    // Colour only on a terminal, and never with NO_COLOR set (no-color.org).
    const colour = io.stdoutIsTty && !io.deps.env.NO_COLOR;
    const width = io.stdoutIsTty && io.columns ? io.columns : DEFAULT_COLUMNS;
    io.out(renderVerbHelp(verb, { width, colour }));
    return 0;
  }
  try {
    const { result } = await runCommand(cmd, { rawArgs: rest, data: io });
    return typeof result === "number" ? result : 0;
  } catch (error) {
    // citty's own argument errors (CLIError) are usage errors, not bugs.
    if (error instanceof Error && error.name === "CLIError") throw new UsageError(error.message, { command });
    throw error;
  }
}
