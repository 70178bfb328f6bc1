import { ndJsonStream } from "@agentclientprotocol/sdk";
import { parseArgs } from "citty";
import { AcpFlags } from "../../core/acp/session.ts";
import { UsageError } from "../../core/errors.ts";
import { orphanGuardField } from "../../core/guard/fields.ts";
import type { Deps } from "../../core/ports.ts";
import { closeSessions } from "../../operations/acp/session.ts";
import { acpOnHost } from "../../operations/hosts/stream.ts";
import { loadDefaultProvider } from "../../operations/worker/user-config.ts";
import {
  argsFromSchema,
  asksForHelp,
  inputFromArgs,
  refuseFlagLikeValues,
  rejectUnknownFlags,
} from "../cli/args.ts";
import { flagsOfSchema } from "../cli/flags.ts";
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
    io.out(`${HELP}\nFlags:\n${renderFlags()}`);
    return 0;
  }
  rejectUnknownFlags(argv, ARGS);
  const flags = inputFromArgs(AcpFlags, parseArgs([...argv], ARGS) as Record<string, unknown>, argv);
  const orphan = orphanGuardField(flags);
  if (orphan) throw new UsageError(orphan.message, { field: orphan.field });
  if (flags.host !== undefined) return acpOnHost(io.deps, flags.host, hostWords(argv));
  const provider = flags.provider ?? (await loadDefaultProvider(io.deps, "claude"));
  // Prompts end when the client goes or on SIGTERM; the workers are killed after, with the face's own deps.
  const stop = new AbortController();
  const signal = io.deps.signal ? AbortSignal.any([io.deps.signal, stop.signal]) : stop.signal;
  const face = createAcpAgent(
    { ...io.deps, signal },
    { version: io.version, flags, provider, hostWords: () => hostWords(argv) },
  );
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
  await Promise.all([closeSessions(rest, face.spawned(), face.sessions()), face.closeHosts()]);
  connection.close();
  return 0;
}

/**
 * The face's argv for the host's own `umbel acp`: --host taken out. A value given with --env would
 * travel on the remote command line, so only names pass (the host's umbel reads them there).
 */
function hostWords(argv: readonly string[]): string[] {
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === "--host") {
      i++;
      continue;
    }
    if (arg.startsWith("--host=")) continue;
    const env = arg === "--env" ? argv[i + 1] : arg.startsWith("--env=") ? arg.slice("--env=".length) : null;
    if (env?.includes("="))
      throw new UsageError(
        `--env ${env.split("=")[0]}=…: with --host a value would travel on the host's command line; give the name alone (read from the host's environment) or set it in the host's config.toml`,
        { name: env.split("=")[0] },
      );
    words.push(arg);
  }
  return words;
}

function renderFlags(): string {
  const flags = flagsOfSchema(AcpFlags, []).map((f) => [
    `${f.flag}${f.hint ? ` ${f.hint}` : ""}`,
    f.description,
  ]);
  const width = Math.max(...flags.map(([usage]) => (usage ?? "").length)) + 2;
  return flags.map(([usage, text]) => `  ${(usage ?? "").padEnd(width)}${text}\n`).join("");
}
