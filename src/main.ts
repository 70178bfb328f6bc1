import pkg from "../package.json" with { type: "json" };
import { formatError, renderErrorJson, toExitCode } from "./core/errors.ts";
import { STRUCTURED_SERVER_COMMAND } from "./core/guard/tool.ts";

/**
 * The entry point and the one error boundary: every face runs inside this try, errors become a
 * one-line message on stderr (plus a JSON error on stdout with --json) and a documented exit code.
 * Faces are imported lazily so `umbel --version` loads nothing else.
 */
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
    const { renderHelp } = await import("./faces/cli/help.ts");
    out(renderHelp(pkg.version));
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
  if (command === STRUCTURED_SERVER_COMMAND) {
    // A --structured worker's own MCP server (hidden): its state root comes on argv, never from env.
    const { runStructuredServer } = await import("./faces/structured/server.ts");
    return runStructuredServer(rest, {
      version: pkg.version,
      deps: (root) => createDeps({ ...process.env, UMBEL_HOME: root }, { signal: controller.signal }),
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
