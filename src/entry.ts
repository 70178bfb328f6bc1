import type { Readable, Writable } from "node:stream";
import { createTrace } from "./adapters/trace.ts";
import { formatError, renderErrorJson, toExitCode } from "./core/errors.ts";
import type { TracePort } from "./core/ports.ts";
import { routeArgv, takeTraceFlag } from "./faces/route.ts";

/** What a run of umbel takes from its process; main.ts passes the real ones, tests their own. */
export type MainIo = {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** Fires on SIGINT / SIGTERM: spawn unwinds, -p purges its worker, wait returns aborted. */
  readonly signal: AbortSignal;
  readonly version: string;
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  readonly readStdin: () => Promise<string>;
  /** stdin as a stream (a verb relayed from another host reads its envelope, then waits for EOF). */
  readonly stdinStream?: () => ReadableStream<Uint8Array>;
  readonly stdinIsTty: boolean;
  readonly stdoutIsTty: boolean;
  readonly columns: number | undefined;
  /** performance.now() when main.ts began to run: the module load, for the trace. */
  readonly loadedAt?: number;
  /** The MCP server's streams (default: the process's own). */
  readonly stdin?: Readable;
  readonly stdout?: Writable;
};

/**
 * One run of umbel, in-process: the face the argv selects (faces/route.ts), inside the one error
 * boundary. Errors become a one-line message on stderr (plus a JSON error on stdout with --json) and
 * a documented exit code. Faces are imported lazily, so `umbel --version` loads nothing else.
 * Returns the exit code; main.ts exits with it, and the argv fuzz test calls this directly.
 */
export async function runMain(given: readonly string[], io: MainIo): Promise<number> {
  const { argv, trace: forced } = takeTraceFlag(given);
  const trace = createTrace(io.env.UMBEL_TRACE, forced);
  if (trace.on) trace.mark(`umbel ${argv[0] ?? ""}: modules loaded at +${(io.loadedAt ?? 0).toFixed(1)} ms`);
  let code: number;
  try {
    code = await dispatch(argv, io, trace);
  } catch (error) {
    io.err(`${formatError(error)}\n`);
    if (argv.includes("--json")) io.out(`${JSON.stringify(renderErrorJson(error))}\n`);
    code = toExitCode(error);
  }
  trace.mark(`exit ${code}`);
  return code;
}

async function dispatch(argv: readonly string[], io: MainIo, trace: TracePort): Promise<number> {
  const route = routeArgv(argv);
  if (route.face === "help" && route.command !== undefined)
    return dispatch([route.command, "--help"], io, trace);
  if (route.face === "help") {
    const { renderHelp } = await import("./faces/cli/help.ts");
    io.out(renderHelp(io.version));
    return 0;
  }
  if (route.face === "version") {
    const [{ readBuildInfo }, { renderVersion }] = await Promise.all([
      import("./adapters/doctor/build-info.ts"),
      import("./faces/cli/version.ts"),
    ]);
    io.out(renderVersion(readBuildInfo(io.version), argv.includes("--json")));
    return 0;
  }
  // zod compiles each object schema into a function (new Function) at its first parse: a verb parses
  // a few objects once, so compiling costs more than it saves (status: 52.8 → 48.4 ms of CPU).
  const { config } = await import("zod");
  config({ jitless: true });
  if (route.face === "policy") {
    // A tool call from a worker's hook: decided from its files alone, with no ports to build.
    const { runPolicyHook } = await import("./faces/hooks/policy.ts");
    trace.mark("face policy loaded");
    return runPolicyHook(route.rest, { readStdin: io.readStdin, out: io.out });
  }
  const { createDeps } = await import("./adapters/deps.ts");
  if (route.face === "structured") {
    // A --structured worker's own MCP server: its state root comes on argv, never from env.
    const { runStructuredServer } = await import("./faces/structured/server.ts");
    trace.mark("face structured loaded");
    return runStructuredServer(route.rest, {
      version: io.version,
      deps: (root) => createDeps({ ...io.env, UMBEL_HOME: root }, { cwd: io.cwd, signal: io.signal, trace }),
    });
  }
  const deps = createDeps(io.env, { cwd: io.cwd, signal: io.signal, trace });
  if (route.face === "drain") {
    const { runDrainHook } = await import("./faces/hooks/drain.ts");
    trace.mark("face drain loaded");
    return runDrainHook(route.rest, { deps, out: io.out });
  }
  if (route.face === "print" || route.face === "exec") {
    const { runPrint } = await import("./faces/print/run.ts");
    trace.mark(`face ${route.face} loaded`);
    // `umbel exec …` is codex exec's dialect of -p.
    return runPrint(route.face === "exec" ? route.rest : argv, {
      deps,
      out: io.out,
      err: io.err,
      readStdin: io.readStdin,
      ...(io.stdinStream ? { stdinStream: io.stdinStream } : {}),
      stdinIsTty: io.stdinIsTty,
      face: route.face,
    });
  }
  if (route.face === "run") {
    const { runWorkflowFace } = await import("./faces/workflow/run.ts");
    trace.mark("face run loaded");
    return runWorkflowFace(route.rest, {
      deps,
      out: io.out,
      err: io.err,
      stdoutIsTty: io.stdoutIsTty,
      columns: io.columns,
    });
  }
  if (route.face === "mcp") {
    const { runMcp } = await import("./faces/mcp/server.ts");
    trace.mark("face mcp loaded");
    return runMcp(route.rest, {
      deps,
      version: io.version,
      out: io.out,
      ...(io.stdin ? { stdin: io.stdin } : {}),
      ...(io.stdout ? { stdout: io.stdout } : {}),
    });
  }
  if (route.face === "acp") {
    const { runAcp } = await import("./faces/acp/run.ts");
    trace.mark("face acp loaded");
    const stdin = io.stdinStream;
    if (!stdin) throw new Error("umbel acp needs stdin as a stream");
    return runAcp(route.rest, { deps, version: io.version, out: io.out, stdin });
  }
  const { runCli } = await import("./faces/cli/run.ts");
  trace.mark("face cli loaded");
  return runCli(route.verb, [...route.rest], {
    deps,
    out: io.out,
    err: io.err,
    readStdin: io.readStdin,
    ...(io.stdinStream ? { stdinStream: io.stdinStream } : {}),
    stdinIsTty: io.stdinIsTty,
    stdoutIsTty: io.stdoutIsTty,
    columns: io.columns,
  });
}
