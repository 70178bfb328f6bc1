import { renderUsage, runCommand } from "citty";
import { type CliIo, unknownVerb, verbs } from "./commands.ts";

/** Runs one verb through citty inside main's error boundary (never runMain: it exits by itself). */
export async function runCli(command: string, rest: string[], io: CliIo): Promise<number> {
  const cmd = verbs[command];
  if (!cmd) return unknownVerb(command);
  if (rest.includes("--help") || rest.includes("-h")) {
    io.out(`${await renderUsage(cmd)}\n`);
    return 0;
  }
  const { result } = await runCommand(cmd, { rawArgs: rest, data: io });
  return typeof result === "number" ? result : 0;
}
