import { parseJson } from "../../core/common/json.ts";
import { ProtocolMismatchError, UsageError } from "../../core/errors.ts";
import { Envelope } from "../../core/hosts/command.ts";
import { renderProgressLine, throttleProgress, type WireProgress } from "../../core/hosts/progress.ts";
import { PROTOCOL } from "../../core/hosts/protocol.ts";
import type { Verb } from "../verbs/verb.ts";
import { formatIssues } from "./args.ts";
import { type CliIo, runParsed } from "./commands.ts";

/**
 * `umbel VERB --stdin-json [--json]`: the hidden form another umbel runs over ssh (docs/hosts.md).
 * The whole input comes on stdin as one envelope line (core/hosts/command.ts), parsed by the verb's
 * own schema, so a prompt or an --env value is never on this host's command line.
 */
export async function runStdinJson(verb: Verb, rest: readonly string[], io: CliIo): Promise<number> {
  const other = rest.find((arg) => arg !== "--json");
  if (other !== undefined)
    throw new UsageError("--stdin-json takes the whole input on stdin: no argument but --json beside it", {
      command: verb.name,
    });
  const { envelope, more } = await readEnvelope(io, verb.name);
  // One hop: a fleet view run for another umbel lists this host's own workers, never its hosts'.
  const local = "local" in verb.input.shape ? { local: true } : {};
  const input = verb.input.safeParse({ ...envelope.input, ...local });
  if (!input.success) throw new UsageError(formatIssues(input.error), { command: verb.name });
  const fields = input.data as Record<string, unknown>;
  // One hop: the host runs its own workers; it never relays to a host of its own config.
  const names = [fields.name, ...(Array.isArray(fields.names) ? fields.names : [])];
  if (fields.host !== undefined || names.some((n) => String(n ?? "").includes(":")))
    throw new UsageError("--stdin-json names a worker of this host only (NAME, never HOST:NAME)", {
      command: verb.name,
    });
  endWithCaller(envelope, more);
  return runParsed(verb, input.data, io, rest.includes("--json"), progressLines(verb, envelope, io));
}

/** One update a second at most, a change of state at once: what the caller's MCP face sends on. */
const PROGRESS_EVERY_MS = 1000;

/**
 * A wait asked for its progress (docs/hosts.md#progress-of-a-wait-on-a-host): each update a `{"progress": …}` line on
 * stdout, ahead of the result line the caller reads as the answer.
 */
function progressLines(verb: Verb, envelope: Envelope, io: CliIo): ((update: unknown) => void) | undefined {
  if (!envelope.progress || verb.name !== "wait") return undefined;
  const send = throttleProgress((p) => io.out(renderProgressLine(p)), PROGRESS_EVERY_MS);
  return (update) => send(update as WireProgress);
}

/** The envelope on stdin (its protocol checked), and with a stream a promise of stdin's end after it. */
export async function readEnvelope(
  io: Pick<CliIo, "readStdin" | "stdinStream">,
  command: string,
): Promise<{ envelope: Envelope; more: Promise<void> | null }> {
  const { line, rest: more } = await readLine(io);
  const envelope = Envelope.safeParse(parseJson(line));
  if (!envelope.success)
    throw new UsageError(`--stdin-json: stdin is not an envelope: ${formatIssues(envelope.error)}`, {
      command,
    });
  if (envelope.data.protocol !== PROTOCOL)
    throw new ProtocolMismatchError(
      `this umbel speaks protocol ${PROTOCOL}, its caller ${envelope.data.protocol}: install the same umbel on both`,
      { local: envelope.data.protocol, remote: PROTOCOL },
    );
  return { envelope: envelope.data, more };
}

/**
 * A caller that went away (its Ctrl-C killed its ssh, the link dropped) must not leave this verb
 * running to its own timeout: sshd signals a command without a terminal nothing when the channel
 * closes, but the caller held stdin open, and its EOF is that news. It ends the verb as a dropped
 * terminal does (SIGHUP, main.ts's clean stop: a wait returns aborted, a spawn unwinds, a -p
 * removes its worker; a named worker is never touched).
 */
export function endWithCaller(envelope: Envelope, more: Promise<void> | null): void {
  if (envelope.held && more) void more.then(() => process.kill(process.pid, "SIGHUP"));
}

/** The envelope's line, and (with a stream) a promise of stdin's end after it. */
async function readLine(
  io: Pick<CliIo, "readStdin" | "stdinStream">,
): Promise<{ line: string; rest: Promise<void> | null }> {
  if (!io.stdinStream) return { line: await io.readStdin(), rest: null };
  const reader = io.stdinStream().getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (value) text += decoder.decode(value, { stream: true });
    const newline = text.indexOf("\n");
    if (newline >= 0) return { line: text.slice(0, newline), rest: drain(reader) };
    if (done) return { line: text, rest: Promise.resolve() };
  }
}

async function drain(reader: { read(): Promise<{ done: boolean }> }): Promise<void> {
  for (;;) {
    const { done } = await reader.read().catch(() => ({ done: true }));
    if (done) return;
  }
}
