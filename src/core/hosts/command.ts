import { z } from "zod";
import { UsageError } from "../errors.ts";
import type { EnvSpec } from "../schemas.ts";
import { PROTOCOL } from "./protocol.ts";

/**
 * One remote umbel call as ssh argv (pure). The remote side is the host's umbel with `--json`; what
 * the verb is given travels on ssh's stdin as one JSON envelope (`--stdin-json`), so a prompt, an
 * `--env` value or a path never shows in the remote `ps` nor in a shell history there.
 */

/**
 * A short master: verbs in a burst share one TCP + SSH handshake, and no ssh lingers as a daemon
 * past 60 s of quiet (docs/performance.md measures one verb with and without it).
 */
const CONTROL_PERSIST_S = 60;
/** Past a remote verb's own time: the connection, the remote umbel's start, the answer's way back. */
export const LINK_MARGIN_MS = 30_000;

/** A remote verb that is not a wait nor a spawn: send's bounded re-Enters, read's bounded wait for the flush. */
export const REMOTE_VERB_MS = 90_000;

/** How long ssh may take to connect before the host counts as unreachable. */
const CONNECT_TIMEOUT_S = 5;

/** What the remote umbel reads on stdin under `--stdin-json`: the protocol, and the verb's input. */
export const Envelope = z
  .object({
    protocol: z.number().int().describe("The sender's PROTOCOL"),
    input: z.record(z.string(), z.unknown()).describe("The verb's input, as its schema takes it"),
    held: z
      .boolean()
      .optional()
      .describe("The caller keeps stdin open while the verb runs: its EOF means the caller is gone"),
    progress: z
      .boolean()
      .optional()
      .describe(
        "Print the verb's progress (a wait's) as {\"progress\": …} lines on stdout before its result",
      ),
  })
  .strict();
export type Envelope = z.infer<typeof Envelope>;

/** `umbel -p --host box`'s (and `umbel exec --host box`'s) envelope input: the whole argv and stdin, run there as given. */
export const RemotePrint = z
  .object({
    face: z
      .enum(["print", "exec"])
      .optional()
      .describe("exec: `umbel exec ARGV` there (codex exec's dialect); else (print) `umbel ARGV`, a -p"),
    argv: z.array(z.string()).describe("-p's arguments, --host taken out (the prompt among them)"),
    stdin: z.string().describe("What -p read on the caller's stdin (empty when it was a terminal)"),
    stdinIsTty: z.boolean().describe("The caller's stdin was a terminal: -p reads none"),
  })
  .strict();
export type RemotePrint = z.infer<typeof RemotePrint>;

export type SshCall = {
  /** The ssh program and its options (UMBEL_SSH_COMMAND, the host's ssh_command, or ssh). */
  readonly ssh: readonly string[];
  readonly destination: string;
  /** `<state root>/ssh`, made 0700 by the adapter: the master connections' sockets. */
  readonly controlDir: string;
  /** The command line the remote shell runs (remoteCommand). */
  readonly command: string;
  /** A terminal on the host (`-t`: attach, its screen on this one); else none (`-T`, the default). */
  readonly tty?: boolean | undefined;
};

/** The argv of one remote call: batch mode (a password prompt is an error, never a hang), the master. */
export function sshArgv(call: SshCall): string[] {
  const options = [
    "BatchMode=yes",
    "ControlMaster=auto",
    // %C: a hash of the connection's parameters, short enough for a socket path (108 bytes).
    `ControlPath=${call.controlDir}/%C`,
    `ControlPersist=${CONTROL_PERSIST_S}`,
    `ConnectTimeout=${CONNECT_TIMEOUT_S}`,
    // A link that dies under a long wait is noticed in ~30 s instead of the TCP timeout.
    "ServerAliveInterval=10",
    "ServerAliveCountMax=3",
  ];
  // `--`: a destination that starts with - is never read as an option (-oProxyCommand=…).
  return [
    ...call.ssh,
    call.tty ? "-t" : "-T",
    ...options.flatMap((o) => ["-o", o]),
    "--",
    call.destination,
    call.command,
  ];
}

/**
 * `umbel VERB --stdin-json --json` for the remote shell: every word single-quoted, except a leading
 * `~/` of the umbel path, which the remote shell must expand to the remote home.
 */
export function remoteCommand(umbel: string, words: readonly string[]): string {
  return [quotePath(umbel), ...words.map(quoteForShell)].join(" ");
}

/** A path for the remote shell, quoted, its leading `~/` left outside the quotes to be the remote home. */
export function quotePath(path: string): string {
  return path.startsWith("~/") ? `~/${quoteForShell(path.slice(2))}` : quoteForShell(path);
}

/** A word for a POSIX shell: single quotes keep every byte but ' itself, written '\''. */
export function quoteForShell(word: string): string {
  if (/^[A-Za-z0-9_./=:@%+-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", "'\\''")}'`;
}

/** The remote command of a verb: its input goes on stdin, never on this line. */
export function verbCommand(umbel: string, verb: string): string {
  return remoteCommand(umbel, [verb, "--stdin-json", "--json"]);
}

/**
 * The envelope's text (ssh's stdin). `progress` only when asked: an umbel of this PROTOCOL from
 * before it refuses the field (its envelope is strict), and the caller asks again without it.
 */
export function renderEnvelope(input: Record<string, unknown>, options: { progress?: boolean } = {}): string {
  const progress = options.progress ? { progress: true } : {};
  return `${JSON.stringify({ protocol: PROTOCOL, input, held: true, ...progress } satisfies Envelope)}\n`;
}

/**
 * The wire form of an input parsed locally: a duration is a number of ms once parsed, which the
 * remote schema would read as seconds, so it goes as "<n>ms". A field is a duration when its
 * schema reads "1ms" as 1.
 */
export function toWire(
  shape: Readonly<Record<string, z.ZodType>>,
  input: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const wire: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined) continue;
    const field = shape[key];
    const isDuration = typeof value === "number" && field?.safeParse("1ms").data === 1;
    wire[key] = isDuration ? `${value}ms` : value;
  }
  return wire;
}

/**
 * A spawn's `--env` for the wire: `--env NAME` takes its value from this (the caller's) environment,
 * as it would locally, and the value travels in the envelope on stdin, never on a command line.
 */
export function resolveWireEnv(
  spec: EnvSpec,
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const resolved: Record<string, string> = {};
  for (const [name, value] of Object.entries(spec)) {
    if (typeof value === "string") {
      resolved[name] = value;
      continue;
    }
    const copied = env[value.fromEnv];
    if (copied === undefined)
      throw new UsageError(`--env ${name}: ${value.fromEnv} is not set in umbel's environment`, {
        name,
        fromEnv: value.fromEnv,
      });
    resolved[name] = copied;
  }
  return resolved;
}
