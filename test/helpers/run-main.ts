import { Readable, Writable } from "node:stream";
import { runMain } from "../../src/entry.ts";
import type { Sandbox } from "./sandbox.ts";

/**
 * umbel's main in this process, in the sandbox, with its output caught: for tests of what a person
 * or a host's caller reads (usage errors, flag values, `--stdin-json`). `stdin` null: a terminal;
 * `stream`: stdin is also offered as a stream (the remote side of a host's call reads it so).
 */
export async function runInProcess(
  sb: Sandbox,
  argv: string[],
  options: { readonly stdin?: string | null; readonly stream?: boolean } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdin = options.stdin ?? null;
  let stdout = "";
  let stderr = "";
  const code = await runMain(argv, {
    env: sb.env,
    cwd: sb.work,
    signal: new AbortController().signal,
    version: "0.0.0-test",
    out: (text) => {
      stdout += text;
    },
    err: (text) => {
      stderr += text;
    },
    readStdin: async () => stdin ?? "",
    ...(options.stream ? { stdinStream: () => new Blob([stdin ?? ""]).stream() } : {}),
    stdinIsTty: stdin === null,
    stdoutIsTty: false,
    columns: 80,
    stdin: Readable.from([]),
    stdout: new Writable({ write: (_chunk, _encoding, done) => done() }),
  });
  return { code, stdout, stderr };
}
