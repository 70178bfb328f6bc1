// The pinned acpx (the ACP headless client, scripts/setup-real-acpx.ts) the `umbel acp` real files
// drive: where it lives, and one run of it whose JSON-RPC stream the tests read.
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import { realAcpxBinPath } from "../../scripts/setup-real-acpx.ts";
import { REAL_TIER_HINT } from "./real-bin.ts";

const REPO_ROOT = resolve(import.meta.dir, "..", "..");

/** acpx's `dist/cli.js` (run with node), or null to skip locally; UMBEL_REQUIRE_REAL=1 makes it a failure. */
export function requireRealAcpx(file: string): string | null {
  const bin = realAcpxBinPath(REPO_ROOT);
  if (existsSync(bin)) return bin;
  if (process.env.UMBEL_REQUIRE_REAL === "1") {
    throw new Error(`${file}: acpx is not installed but UMBEL_REQUIRE_REAL=1 (${REAL_TIER_HINT})`);
  }
  console.warn(`${file} skipped: ${REAL_TIER_HINT}`);
  return null;
}

/** One JSON-RPC message of acpx's `--format json` stream (both directions, as they passed). */
export type RpcMessage = {
  id?: number | string | null;
  method?: string;
  params?: Record<string, unknown> & { update?: Record<string, unknown> };
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: Record<string, unknown> };
};

export type AcpxRun = {
  readonly pid: number;
  /** The messages printed so far. */
  messages(): RpcMessage[];
  /** Resolves when acpx exited: its exit code, every message, its stderr. */
  readonly done: Promise<{ code: number; messages: RpcMessage[]; stderr: string }>;
};

/**
 * `node <acpx> --format json --cwd <cwd> ARGS` with `env` (acpx passes its own environment on to
 * the agent it starts; HOME is where it keeps ~/.acpx). stdin is closed: acpx cannot prompt for a
 * permission, so `--approve-all` / `--deny-all` / the default (deny) decide.
 */
export function startAcpx(bin: string, cwd: string, env: Record<string, string>, args: string[]): AcpxRun {
  const child = Bun.spawn(["node", bin, "--format", "json", "--cwd", cwd, ...args], {
    cwd,
    env,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  let out = "";
  // Only complete lines: a chunk can end mid-line.
  const messages = () =>
    out
      .slice(0, out.lastIndexOf("\n") + 1)
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as RpcMessage);
  const reading = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stdout) out += decoder.decode(chunk, { stream: true });
  })();
  const done = (async () => {
    const [stderr] = await Promise.all([new Response(child.stderr).text(), reading]);
    const code = await child.exited;
    if (!out.endsWith("\n")) out += "\n";
    return { code, messages: messages(), stderr };
  })();
  return {
    pid: child.pid,
    messages,
    done,
  };
}

/** The session updates of a stream, in order (`params.update`). */
export function updates(messages: RpcMessage[], kind?: string): Record<string, unknown>[] {
  return messages
    .filter((m) => m.method === "session/update")
    .map((m) => m.params?.update ?? {})
    .filter((u) => kind === undefined || u.sessionUpdate === kind);
}

/**
 * The answer to the first request of `method`. The two sides number their requests each on its own
 * (an agent's session/request_permission can carry the id of the client's pending session/prompt),
 * so an answer pairs with the latest unanswered request of its id, as the nested calls go.
 */
export function answerTo(messages: RpcMessage[], method: string): RpcMessage | undefined {
  const open: RpcMessage[] = [];
  const answers = new Map<RpcMessage, RpcMessage>();
  for (const m of messages) {
    if (m.method !== undefined) {
      if (m.id !== undefined) open.push(m);
      continue;
    }
    const at = open.findLastIndex((r) => r.id === m.id);
    if (at < 0) continue;
    const [request] = open.splice(at, 1);
    if (request) answers.set(request, m);
  }
  const request = messages.find((m) => m.method === method && m.id !== undefined);
  return request ? answers.get(request) : undefined;
}

/** acpx's queue sockets live in /tmp/acpx-<sha256(HOME)[:10]>, outside HOME: removed with the world. */
export async function removeAcpxSockets(home: string): Promise<void> {
  const dir = join("/tmp", `acpx-${createHash("sha256").update(home).digest("hex").slice(0, 10)}`);
  await rm(dir, { recursive: true, force: true });
}
