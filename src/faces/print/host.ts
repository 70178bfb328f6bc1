import { UsageError } from "../../core/errors.ts";
import { LINK_MARGIN_MS, RemotePrint } from "../../core/hosts/command.ts";
import { HostName } from "../../core/hosts/schema.ts";
import { Duration } from "../../core/schemas.ts";
import { printOnHost } from "../../operations/hosts/print.ts";
import { DEFAULT_START_TIMEOUT_MS } from "../../operations/spawn/prepare.ts";
import { DEFAULT_WAIT_TIMEOUT_MS } from "../../operations/wait/wait.ts";
import { formatIssues } from "../cli/args.ts";
import { endWithCaller, readEnvelope } from "../cli/stdin-json.ts";
import type { PrintIo } from "./io.ts";

/**
 * `umbel -p --host box …` (docs/hosts.md): the whole -p on a host of config.toml, over ssh, and
 * `umbel -p --stdin-json`, the host's side of it. Every flag and path is the host's, as a spawn
 * --host's are; the prompt and stdin travel in the envelope, never on the remote command line.
 */

/** The words the host's umbel runs: -p's own argv comes in the envelope. */
export const REMOTE_PRINT_ARGV = ["-p", "--stdin-json"] as const;

/** `--host NAME` (or `--host=NAME`) before any `--`, taken out of -p's argv; null: a local -p. */
export function takeHostFlag(argv: readonly string[]): { host: string | null; argv: string[] } {
  const end = argv.indexOf("--") === -1 ? argv.length : argv.indexOf("--");
  for (let i = 0; i < end; i++) {
    const arg = argv[i] as string;
    const joined = arg.startsWith("--host=") ? arg.slice("--host=".length) : null;
    if (arg !== "--host" && joined === null) continue;
    const value = joined ?? argv[i + 1];
    if (value === undefined || (joined === null && i + 1 >= end))
      throw new UsageError("--host needs a host of config.toml ([hosts.NAME])", { flag: "--host" });
    const host = HostName.safeParse(value);
    if (!host.success)
      throw new UsageError(`--host ${value}: ${formatIssues(host.error)}`, { flag: "--host" });
    const taken = joined === null ? 2 : 1;
    return { host: host.data, argv: [...argv.slice(0, i), ...argv.slice(i + taken)] };
  }
  return { host: null, argv: [...argv] };
}

/**
 * A -p (or, `face` exec, an `umbel exec`) run on the host: its stdout printed as it comes, its
 * stderr once it ends, its exit code returned.
 */
export async function runPrintOnHost(
  io: PrintIo,
  host: string,
  argv: readonly string[],
  face: "print" | "exec" = "print",
): Promise<number> {
  const stdin = io.stdinIsTty ? "" : await io.readStdin();
  const reply = await printOnHost(
    io.deps,
    {
      host,
      ...(face === "exec" ? { face } : {}),
      argv: withLocalEnv(argv, io.deps.env),
      stdin,
      stdinIsTty: io.stdinIsTty,
      boundMs: boundOf(argv),
    },
    io.out,
  );
  if (reply.stderr) io.err(reply.stderr);
  return reply.exitCode;
}

/** `umbel -p --stdin-json`: the caller's -p (or exec), run here on its argv and stdin from the envelope. */
export async function runPrintFromEnvelope(
  io: PrintIo,
  run: (argv: readonly string[], io: PrintIo, face: "print" | "exec") => Promise<number>,
): Promise<number> {
  const { envelope, more } = await readEnvelope(io, "-p");
  const input = RemotePrint.safeParse(envelope.input);
  if (!input.success) throw new UsageError(formatIssues(input.error), { command: "-p" });
  // One hop: the host runs its own -p; it never relays it to a host of its own config.
  if (takeHostFlag(input.data.argv).host !== null)
    throw new UsageError("-p --stdin-json runs on this host only (no --host)", { command: "-p" });
  endWithCaller(envelope, more);
  const { stdin, stdinIsTty, face } = input.data;
  return run(input.data.argv, { ...io, readStdin: async () => stdin, stdinIsTty }, face ?? "print");
}

/**
 * `--env NAME` takes its value from this (the caller's) environment, as a local -p and a spawn
 * --host do: it goes as `--env NAME=VALUE`, inside the envelope (never on a command line).
 */
function withLocalEnv(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): string[] {
  const end = argv.indexOf("--") === -1 ? argv.length : argv.indexOf("--");
  return argv.map((arg, i) => {
    if (i >= end || argv[i - 1] !== "--env" || arg.includes("=")) return arg;
    const value = env[arg];
    if (value === undefined)
      throw new UsageError(`--env ${arg}: ${arg} is not set in umbel's environment`, { name: arg });
    return `${arg}=${value}`;
  });
}

/** The whole remote call's bound: -p's --start-timeout and --timeout (or their defaults), and the link's margin. */
function boundOf(argv: readonly string[]): number {
  const flag = (name: string, fallback: number) => {
    const at = argv.findIndex((a) => a === name || a.startsWith(`${name}=`));
    const given = at < 0 ? undefined : (argv[at]?.split("=")[1] ?? argv[at + 1]);
    return (given === undefined ? undefined : Duration.safeParse(given).data) ?? fallback;
  };
  return (
    flag("--start-timeout", DEFAULT_START_TIMEOUT_MS) +
    flag("--timeout", DEFAULT_WAIT_TIMEOUT_MS) +
    LINK_MARGIN_MS
  );
}
