import pkg from "../package.json" with { type: "json" };
import { formatError, renderErrorJson, toExitCode } from "./core/errors.ts";

/**
 * The entry point and the one error boundary: every face runs inside this try, errors become a
 * one-line message on stderr (plus a JSON error on stdout with --json) and a documented exit code.
 * Faces are imported lazily so `umbel --version` loads nothing else.
 */
const HELP = `umbel ${pkg.version} — drive interactive agent CLIs (Claude Code, Codex, Gemini CLI) from programs, inside tmux

Usage:
  umbel -p [PROMPT] [flags]          one turn, printed like claude -p (prompt from argv and/or stdin)
  umbel <command> [args] [--json]

Commands:
  spawn NAME     start a worker and return when its TUI is ready
  send NAME P    send a prompt (or stdin), prove delivery, print the baseline
  wait NAME      wait for the turn to end; the exit code is the outcome
  read NAME      print the final assistant text of the last turn
  status NAME    idle, busy, needs-input, starting, dead or killed
  ls             list workers
  kill NAME      stop a worker (tombstone kept; --purge removes it)
  prune          remove dead and killed workers
  capture NAME   print the worker's screen
  logs NAME      print the worker's hook events (-f to follow)
  keys NAME K..  press keys (answer a permission prompt: 1 approves, Escape denies)
  attach NAME    attach your terminal to the worker
  mcp            serve every command as a tool to an MCP host, over stdio (docs/mcp.md)
  run FILE       run a workflow: prompts over workers as a DAG (--dry-run, --resume ID, --schema)

Exit codes: 0 ok · 1 failure · 2 usage · 3 no such worker · 4 conflict (name taken, busy) · 70 internal
  wait/-p: 122 provider-error · 123 idle · 124 timeout · 125 dead · 126 input · 127 CLI not found · 130 aborted
State: $UMBEL_HOME (default ~/.umbel). Run umbel <command> --help for its flags.
`;

async function main(argv: string[]): Promise<number> {
  const controller = new AbortController();
  let interrupts = 0;
  process.on("SIGINT", () => {
    // First Ctrl-C: abort cleanly (spawn unwinds, -p purges its worker, wait returns aborted).
    if (++interrupts > 1) process.exit(130);
    controller.abort();
  });
  process.on("SIGTERM", () => controller.abort());
  const { createDeps } = await import("./adapters/deps.ts");
  const deps = createDeps(process.env, { signal: controller.signal });
  const out = (text: string) => void process.stdout.write(text);
  const readStdin = () => Bun.stdin.text();
  const stdinIsTty = process.stdin.isTTY === true;
  if (argv.includes("-p") || argv.includes("--print")) {
    const { runPrint } = await import("./faces/print/run.ts");
    return runPrint(argv, { deps, out, err: (t) => void process.stderr.write(t), readStdin, stdinIsTty });
  }
  const [command, ...rest] = argv;
  if (command === undefined || command === "--help" || command === "-h" || command === "help") {
    out(HELP);
    return command === undefined ? 2 : 0;
  }
  if (command === "--version" || command === "-v" || command === "version") {
    out(`${pkg.version}\n`);
    return 0;
  }
  if (command === "run") {
    const { runWorkflowFace } = await import("./faces/workflow/run.ts");
    return runWorkflowFace(rest, {
      deps,
      out,
      err: (t) => void process.stderr.write(t),
      stdoutIsTty: process.stdout.isTTY === true,
      columns: process.stdout.columns,
    });
  }
  if (command === "mcp") {
    const { runMcp } = await import("./faces/mcp/server.ts");
    return runMcp(rest, { deps, version: pkg.version, out });
  }
  const { runCli } = await import("./faces/cli/run.ts");
  return runCli(command, rest, {
    deps,
    out,
    readStdin,
    stdinIsTty,
    stdoutIsTty: process.stdout.isTTY === true,
  });
}

const argv = process.argv.slice(2);
let code: number;
try {
  code = await main(argv);
} catch (error) {
  process.stderr.write(`${formatError(error)}\n`);
  if (argv.includes("--json")) process.stdout.write(`${JSON.stringify(renderErrorJson(error))}\n`);
  code = toExitCode(error);
}
process.exit(code);
