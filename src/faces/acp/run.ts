import { ndJsonStream } from "@agentclientprotocol/sdk";
import { parseArgs } from "citty";
import { AcpFlags } from "../../core/acp/session.ts";
import type { Deps } from "../../core/ports.ts";
import { closeSessions } from "../../operations/acp/session.ts";
import { loadDefaultProvider } from "../../operations/worker/user-config.ts";
import { argsFromSchema, asksForHelp, inputFromArgs, refuseFlagLikeValues, rejectUnknownFlags } from "../cli/args.ts";
import { createAcpAgent } from "./agent.ts";
import HELP from "./help.md" with { type: "text" };

export type AcpIo = {
  readonly deps: Deps;
  readonly version: string;
  readonly out: (text: string) => void;
  readonly stdin: () => ReadableStream<Uint8Array>;
};

const ARGS = argsFromSchema(AcpFlags);

/**
 * `umbel acp`: an Agent Client Protocol agent on stdio (newline-delimited JSON-RPC). Serves until
 * stdin closes or the process is told to stop, then kills the workers its sessions spawned (their
 * tombstones kept, as `-p` removes its own worker) and exits 0.
 */
export async function runAcp(argv: readonly string[], io: AcpIo): Promise<number> {
  refuseFlagLikeValues(argv, ARGS);
  if (asksForHelp(argv)) {
    io.out(HELP);
    return 0;
  }
  rejectUnknownFlags(argv, ARGS);
  const flags = inputFromArgs(AcpFlags, parseArgs([...argv], ARGS) as Record<string, unknown>, argv);
  const provider = flags.provider ?? (await loadDefaultProvider(io.deps, "claude"));
  // Prompts end when the client goes or on SIGTERM; the workers are killed after, with the face's own deps.
  const stop = new AbortController();
  const signal = io.deps.signal ? AbortSignal.any([io.deps.signal, stop.signal]) : stop.signal;
  const face = createAcpAgent({ ...io.deps, signal }, { version: io.version, flags, provider });
  const decoder = new TextDecoder();
  const output = new WritableStream<Uint8Array>({
    write: (chunk) => io.out(decoder.decode(chunk, { stream: true })),
  });
  const connection = face.app.connect(ndJsonStream(output, io.stdin()));
  await new Promise<void>((resolve) => {
    void connection.closed.then(resolve, resolve);
    if (io.deps.signal?.aborted) resolve();
    io.deps.signal?.addEventListener("abort", () => resolve(), { once: true });
  });
  stop.abort();
  face.abortPrompts();
  const { signal: _gone, ...rest } = io.deps;
  await closeSessions(rest, face.spawned());
  connection.close();
  return 0;
}
