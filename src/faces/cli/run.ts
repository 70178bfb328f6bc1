import { renderUsage, runCommand } from "citty";
import { UsageError } from "../../core/errors.ts";
import { type CliIo, unknownVerb, verbs } from "./commands.ts";

/** Runs one verb through citty inside main's error boundary (never runMain: it exits by itself). */
export async function runCli(command: string, rest: string[], io: CliIo): Promise<number> {
  const cmd = verbs[command];
  if (!cmd) return unknownVerb(command);
  if (rest.includes("--help") || rest.includes("-h")) {
    io.out(`${await renderUsage(cmd)}\n`);
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
