// The SDK's own ACP client driving `dist/umbel acp` over its stdin/stdout, as an editor would.

import { existsSync } from "node:fs";
import {
  type ClientConnection,
  type ContentBlock,
  client,
  type InitializeResponse,
  type LoadSessionResponse,
  type NewSessionResponse,
  ndJsonStream,
  PROTOCOL_VERSION,
  RequestError,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
  type SessionUpdate,
  type SetSessionModeResponse,
  type StopReason,
} from "@agentclientprotocol/sdk";
import { type Sandbox, UMBEL } from "./sandbox.ts";

/** What the client answers to `session/request_permission`: an option's id, or cancelled. */
export type PermissionChoice = { optionId: string } | "cancelled";

/** A JSON-RPC error the face answered a request with. */
export type AcpError = { code: number; message: string; data: Record<string, unknown> | undefined };

/** A prompt's end: its stopReason or the error, and the session's updates while it ran. */
export type PromptOutcome =
  | { stopReason: StopReason; error?: undefined; updates: SessionUpdate[] }
  | { stopReason?: undefined; error: AcpError; updates: SessionUpdate[] };

export type AcpFace = {
  /** Every `session/update` notification, in arrival order. */
  readonly notifications: SessionNotification[];
  /** Every `session/request_permission` the face sent, in arrival order. */
  readonly permissionRequests: RequestPermissionRequest[];
  /** The face's stderr so far (for a failing test's message). */
  stderr(): string;
  /** How the next permission requests are answered (default: cancelled). */
  answerPermissions(choice: PermissionChoice): void;
  initialize(): Promise<InitializeResponse>;
  newSession(cwd: string, meta?: Record<string, unknown>): Promise<NewSessionResponse>;
  /** Sends the prompt; resolves when the face answers it (a JSON-RPC error is returned, not thrown). */
  prompt(sessionId: string, prompt: string | ContentBlock[], deadlineMs?: number): Promise<PromptOutcome>;
  cancel(sessionId: string): Promise<void>;
  load(
    sessionId: string,
    cwd: string,
  ): Promise<{ response: LoadSessionResponse; updates: SessionUpdate[] } | { error: AcpError }>;
  setMode(sessionId: string, modeId: string): Promise<SetSessionModeResponse | { error: AcpError }>;
  /** Ends the face's stdin and waits for its exit code. */
  close(deadlineMs?: number): Promise<number>;
  /** Kills the face if it still runs (afterAll's safety net). */
  kill(): void;
};

const REQUEST_MS = 30_000;

/** Starts `dist/umbel acp FLAGS` in the sandbox's environment and connects the SDK's client to it. */
export function startAcp(sb: Pick<Sandbox, "env" | "work">, flags: readonly string[] = []): AcpFace {
  if (!existsSync(UMBEL)) throw new Error("dist/umbel is missing: run `npm run build`");
  const child = Bun.spawn([UMBEL, "acp", ...flags], {
    cwd: sb.work,
    env: sb.env,
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  let stderr = "";
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stderr) stderr += decoder.decode(chunk, { stream: true });
  })();
  const notifications: SessionNotification[] = [];
  const permissionRequests: RequestPermissionRequest[] = [];
  let choice: PermissionChoice = "cancelled";

  const toChild = new WritableStream<Uint8Array>({
    async write(chunk) {
      child.stdin.write(chunk);
      await child.stdin.flush();
    },
    async close() {
      await child.stdin.end();
    },
  });
  const app = client({ name: "umbel-e2e" })
    .onNotification("session/update", ({ params }) => {
      notifications.push(params);
    })
    .onRequest("session/request_permission", ({ params }): RequestPermissionResponse => {
      permissionRequests.push(params);
      return choice === "cancelled"
        ? { outcome: { outcome: "cancelled" } }
        : { outcome: { outcome: "selected", optionId: choice.optionId } };
    });
  const connection: ClientConnection = app.connect(ndJsonStream(toChild, child.stdout));
  const agent = connection.agent;
  const tail = () => `umbel acp exit ${child.exitCode ?? "none yet"}, stderr: ${stderr.slice(-2000)}`;
  /** `promise` within `ms`; a failure names the request and the face's stderr. */
  const bound = <T>(promise: Promise<T>, ms: number, what: string) =>
    within(promise, ms, () => `${what} (${tail()})`).catch((error: unknown) => {
      const data = error instanceof RequestError ? ` ${error.code} ${JSON.stringify(error.data)}` : "";
      throw new Error(
        `${what}: ${String(error instanceof Error ? error.message : error)}${data} (${tail()})`,
      );
    });
  /** The session's updates that arrive while `run` runs. */
  const collecting = async <T>(sessionId: string, run: () => Promise<T>) => {
    const from = notifications.length;
    const result = await run();
    const updates = notifications
      .slice(from)
      .filter((n) => n.sessionId === sessionId)
      .map((n) => n.update);
    return { result, updates };
  };

  return {
    notifications,
    permissionRequests,
    stderr: () => stderr,
    answerPermissions(next) {
      choice = next;
    },
    initialize: () =>
      bound(
        agent.request("initialize", {
          protocolVersion: PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
          clientInfo: { name: "umbel-e2e", version: "0" },
        }),
        REQUEST_MS,
        "initialize",
      ),
    newSession: (cwd, meta) =>
      bound(
        agent.request("session/new", { cwd, mcpServers: [], ...(meta ? { _meta: { umbel: meta } } : {}) }),
        REQUEST_MS,
        "session/new",
      ),
    async prompt(sessionId, prompt, deadlineMs = REQUEST_MS) {
      const blocks: ContentBlock[] = typeof prompt === "string" ? [{ type: "text", text: prompt }] : prompt;
      const { result, updates } = await collecting(sessionId, () =>
        bound(
          settle(agent.request("session/prompt", { sessionId, prompt: blocks })),
          deadlineMs,
          `session/prompt ${JSON.stringify(prompt)}`,
        ),
      );
      return "error" in result
        ? { error: result.error, updates }
        : { stopReason: result.value.stopReason, updates };
    },
    cancel: (sessionId) => bound(agent.notify("session/cancel", { sessionId }), REQUEST_MS, "session/cancel"),
    async load(sessionId, cwd) {
      const { result, updates } = await collecting(sessionId, () =>
        bound(
          settle(agent.request("session/load", { sessionId, cwd, mcpServers: [] })),
          REQUEST_MS,
          "session/load",
        ),
      );
      return "error" in result ? { error: result.error } : { response: result.value, updates };
    },
    async setMode(sessionId, modeId) {
      const result = await bound(
        settle(agent.request("session/set_mode", { sessionId, modeId })),
        REQUEST_MS,
        "session/set_mode",
      );
      return "error" in result ? { error: result.error } : result.value;
    },
    async close(deadlineMs = REQUEST_MS) {
      await child.stdin.end();
      const code = await bound(child.exited, deadlineMs, "umbel acp's exit after its stdin closed");
      connection.close();
      return code;
    },
    kill() {
      if (child.exitCode === null) child.kill("SIGKILL");
      connection.close();
    },
  };
}

/** A request's value or its JSON-RPC error (any other failure is thrown). */
async function settle<T>(request: Promise<T>): Promise<{ value: T } | { error: AcpError }> {
  try {
    return { value: await request };
  } catch (error) {
    if (!(error instanceof RequestError)) throw error;
    return {
      error: {
        code: error.code,
        message: error.message,
        data: error.data as Record<string, unknown> | undefined,
      },
    };
  }
}

/** `promise`, or a rejection naming what did not come within `ms`. */
function within<T>(promise: Promise<T>, ms: number, what: () => string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what()}`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
