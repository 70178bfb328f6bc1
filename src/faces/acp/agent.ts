import {
  type AgentApp,
  agent,
  type LoadSessionResponse,
  type McpServer,
  PROTOCOL_VERSION,
  RequestError,
} from "@agentclientprotocol/sdk";
import type { z } from "zod";
import { mcpCapabilities, planMcpServers } from "../../core/acp/mcp.ts";
import { planPrompt } from "../../core/acp/prompt.ts";
import {
  type AcpFlags,
  AcpPromptMeta,
  AcpSessionMeta,
  initializeResult,
  sessionModes,
} from "../../core/acp/session.ts";
import { UMBEL_ERROR_CODE } from "../../core/acp/stop.ts";
import { toUmbelError, UsageError, WorkerNotFoundError } from "../../core/errors.ts";
import { orphanGuardField } from "../../core/guard/fields.ts";
import type { Deps } from "../../core/ports.ts";
import { getProvider } from "../../core/providers/registry.ts";
import type { Provider } from "../../core/providers/types.ts";
import { PermissionMode, type ProviderId, type SpawnInput } from "../../core/schemas.ts";
import {
  acpFolder,
  closeSessions,
  listSessions,
  loadSession,
  newSessionName,
  openSession,
  replayUpdates,
  switchMode,
} from "../../operations/acp/session.ts";
import { type AcpClientPort, runAcpTurn } from "../../operations/acp/turn.ts";
import type { Worker } from "../../operations/worker/worker.ts";

/**
 * `umbel acp`'s agent: ACP's methods as the operations' calls (spawn, send and follow, answer,
 * keys, relaunch, kill). It keeps the connection's sessions in memory, one worker each; the worker
 * itself lives in tmux and the state root, as every worker does.
 */
type Session = {
  worker: Worker;
  /** The spawn as this face holds it (session/set_mode starts the CLI again from it). */
  input: SpawnInput;
  /** Spawned by this face (killed when the client goes); false: adopted by session/load. */
  readonly spawned: boolean;
  prompt: AbortController | null;
  prompts: number;
};

export type AcpAgent = {
  readonly app: AgentApp;
  /** The names of the workers this face spawned and that are still its own. */
  spawned(): string[];
  /** Every session's name. */
  sessions(): string[];
  /** Ends every running prompt (the client went away). */
  abortPrompts(): void;
};

export function createAcpAgent(
  deps: Deps,
  options: { readonly version: string; readonly flags: AcpFlags; readonly provider: ProviderId },
): AcpAgent {
  const {
    maxTurns,
    timeout,
    host: _host,
    jsonSchema,
    accept,
    maxAttempts,
    acceptTimeout,
    ...flags
  } = options.flags;
  // A schema is returned through umbel's StructuredOutput tool: every session's worker gets it.
  const spawnFlags = jsonSchema === undefined ? flags : { ...flags, structured: true };
  const turnFlags: AcpPromptMeta = { jsonSchema, accept, maxAttempts, acceptTimeout, maxTurns, timeout };
  const sessions = new Map<string, Session>();
  const session = (id: string): Session => {
    const found = sessions.get(id);
    if (!found) throw new RequestError(-32002, `no session ${id} in this connection`, { sessionId: id });
    return found;
  };
  /** A session of this state root taken into the connection: adopted live, or resumed (load, resume). */
  const open = async (
    params: { sessionId: string; mcpServers: readonly McpServer[] },
    signal: AbortSignal,
  ) => {
    if (sessions.has(params.sessionId))
      throw RequestError.invalidRequest({ sessionId: params.sessionId }, "this session is open already");
    const loaded = await loadSession(
      withSignal(deps, signal),
      params.sessionId,
      (old, cliSession) => ({
        ...spawnFlags,
        name: old.meta.name,
        provider: old.provider.id,
        cwd: old.meta.cwd,
        ...(old.meta.model ? { model: old.meta.model } : {}),
        ...(old.meta.permissionMode ? { permissionMode: old.meta.permissionMode } : {}),
        resumeSession: cliSession,
      }),
      (old) => ({
        mcpServers: planMcpServers([...params.mcpServers], checkMcp(old.provider)).servers,
        addsDirs: addsDirs(old.provider),
      }),
    );
    const { worker } = loaded;
    sessions.set(worker.meta.name, {
      worker,
      input: {
        ...spawnFlags,
        name: worker.meta.name,
        provider: worker.provider.id,
        cwd: worker.meta.cwd,
        ...(worker.meta.model ? { model: worker.meta.model } : {}),
        ...(worker.meta.permissionMode ? { permissionMode: worker.meta.permissionMode } : {}),
      },
      spawned: !loaded.adopted,
      prompt: null,
      prompts: 0,
    });
    return loaded;
  };
  const app = agent({ name: "umbel" })
    .onRequest("initialize", () => {
      const provider = getProvider(options.provider);
      return initializeResult(PROTOCOL_VERSION, {
        version: options.version,
        images: takesImages(provider),
        mcp: mcpCapabilities(checkMcp(provider)),
      });
    })
    .onRequest("session/new", ({ params, signal }) =>
      mapped(async () => {
        const chosen = parseMeta(params._meta, AcpSessionMeta);
        const input: SpawnInput = {
          ...spawnFlags,
          ...chosen,
          provider: chosen.provider ?? options.provider,
          name: newSessionName(deps),
          cwd: params.cwd,
        };
        const provider = getProvider(input.provider);
        const mcp = planMcpServers(params.mcpServers as McpServer[], checkMcp(provider));
        const worker = await openSession(withSignal(deps, signal), input, mcp.servers, addsDirs(provider));
        sessions.set(worker.meta.name, { worker, input, spawned: true, prompt: null, prompts: 0 });
        return {
          sessionId: worker.meta.name,
          modes: modesOf(worker),
          _meta: {
            umbel: {
              worker: worker.meta.name,
              provider: provider.id,
              mcpServers: { passed: mcp.passed, unsupported: mcp.unsupported },
            },
          },
        };
      }),
    )
    .onRequest("session/load", ({ params, signal, client }) =>
      mapped(async (): Promise<LoadSessionResponse> => {
        const { worker, history } = await open(params, signal);
        for (const update of replayUpdates(history))
          await client.notify("session/update", { sessionId: params.sessionId, update });
        return { modes: modesOf(worker) };
      }),
    )
    // session/load without the replay: the client keeps the conversation it showed.
    .onRequest("session/resume", ({ params, signal }) =>
      mapped(async () => ({
        modes: modesOf((await open({ ...params, mcpServers: params.mcpServers ?? [] }, signal)).worker),
      })),
    )
    .onRequest("session/list", ({ params }) =>
      mapped(async () => ({ sessions: await listSessions(deps, params.cwd ?? null) })),
    )
    .onRequest("session/close", ({ params }) =>
      mapped(async () => {
        const s = session(params.sessionId);
        s.prompt?.abort();
        sessions.delete(params.sessionId);
        await closeSessions(deps, s.spawned ? [params.sessionId] : [], [params.sessionId]);
        return {};
      }),
    )
    .onRequest("session/prompt", ({ params, signal, client }) =>
      mapped(async () => {
        const s = session(params.sessionId);
        if (s.prompt)
          throw RequestError.invalidRequest({ sessionId: params.sessionId }, "a prompt is running");
        const folder = acpFolder(deps, s.worker.meta.name);
        s.prompts += 1;
        const plan = planPrompt(params.prompt, {
          attachDir: folder.attachments,
          images: takesImages(s.worker.provider),
          stamp: String(s.prompts),
        });
        if (!plan.ok) throw RequestError.invalidParams({ sessionId: params.sessionId }, plan.reason);
        await deps.files.ownDirectory(folder.attachments);
        for (const file of plan.files)
          await deps.files.writeAtomic(file.path, file.text ?? Buffer.from(file.base64 ?? "", "base64"));
        const turn = { ...defined(turnFlags), ...parseMeta(params._meta, AcpPromptMeta) };
        const orphan = orphanGuardField(turn);
        if (orphan) throw RequestError.invalidParams({ field: orphan.field }, orphan.message);
        const cancel = new AbortController();
        // The request's own cancellation ($/cancel_request) is a cancel of the turn too.
        signal.addEventListener("abort", () => cancel.abort(), { once: true });
        s.prompt = cancel;
        const port: AcpClientPort = {
          update: (update) => client.notify("session/update", { sessionId: params.sessionId, update }),
          askPermission: async (request) =>
            (
              await client.request("session/request_permission", {
                sessionId: params.sessionId,
                toolCall: request.toolCall,
                options: request.options,
              })
            ).outcome,
        };
        try {
          const { jsonSchema: schema, accept: checks, maxAttempts: attempts, acceptTimeout: checkFor } = turn;
          const guard = {
            jsonSchema: schema,
            accept: checks,
            maxAttempts: attempts,
            acceptTimeout: checkFor,
          };
          const { end, structured } = await runAcpTurn(
            deps,
            s.worker,
            {
              prompt: plan.text,
              maxTurns: turn.maxTurns,
              timeout: turn.timeout,
              guard,
              cancel: cancel.signal,
            },
            port,
          );
          if (end.kind === "error") throw new RequestError(UMBEL_ERROR_CODE, end.message, end.data);
          return {
            stopReason: end.stopReason,
            ...(structured === undefined ? {} : { _meta: { umbel: { structured } } }),
          };
        } finally {
          s.prompt = null;
        }
      }),
    )
    .onNotification("session/cancel", ({ params }) => {
      sessions.get(params.sessionId)?.prompt?.abort();
    })
    .onRequest("session/set_mode", ({ params, signal, client }) =>
      mapped(async () => {
        const s = session(params.sessionId);
        if (s.prompt)
          throw RequestError.invalidRequest({ sessionId: params.sessionId }, "a prompt is running");
        const mode = PermissionMode.safeParse(params.modeId);
        if (!mode.success)
          throw RequestError.invalidParams({ modeId: params.modeId }, `no permission mode ${params.modeId}`);
        const moved = await switchMode(withSignal(deps, signal), s.worker, s.input, mode.data);
        s.worker = moved.worker;
        s.input = moved.input;
        await client.notify("session/update", {
          sessionId: params.sessionId,
          update: { sessionUpdate: "current_mode_update", currentModeId: mode.data },
        });
        return {};
      }),
    );
  return {
    app,
    spawned: () => [...sessions.entries()].filter(([, s]) => s.spawned).map(([name]) => name),
    sessions: () => [...sessions.keys()],
    abortPrompts: () => {
      for (const s of sessions.values()) s.prompt?.abort();
    },
  };
}

/** The session's permission modes: those its provider's launch takes. */
function modesOf(worker: Worker) {
  const check = worker.provider.checkLaunchOptions;
  return sessionModes(
    worker.meta.permissionMode,
    (mode) => !check || check({ permissionMode: mode }) === null,
  );
}

/** A request's `_meta.umbel`, by the schema the face's own flags share. */
function parseMeta<S extends z.ZodType<Record<string, unknown>>>(
  meta: Record<string, unknown> | null | undefined,
  schema: S,
): z.infer<S> {
  const given = meta?.umbel;
  if (given === undefined || given === null) return {} as z.infer<S>;
  const parsed = schema.safeParse(given);
  if (!parsed.success)
    throw RequestError.invalidParams(
      { issues: parsed.error.issues },
      `_meta.umbel: ${parsed.error.issues[0]?.message}`,
    );
  return parsed.data;
}

/** One MCP server checked as the provider's launch checks it. */
function defined<T extends Record<string, unknown>>(record: T): Partial<T> {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)) as Partial<T>;
}

function checkMcp(provider: Provider) {
  return (servers: Readonly<Record<string, unknown>>) =>
    provider.checkLaunchOptions?.({ mcpServers: servers, launchFlags: ["--mcp-config"] }) ?? null;
}

function addsDirs(provider: Provider): boolean {
  return (provider.checkLaunchOptions?.({ launchFlags: ["--add-dir"] }) ?? null) === null;
}

/** claude's Read tool shows an image file to the model; the others are not measured to. */
function takesImages(provider: Provider): boolean {
  return provider.id === "claude";
}

function withSignal(deps: Deps, signal: AbortSignal): Deps {
  return { ...deps, signal: deps.signal ? AbortSignal.any([deps.signal, signal]) : signal };
}

/**
 * umbel's typed errors as JSON-RPC errors the client can branch on: bad input is invalid params, an
 * unknown worker is resource-not-found, anything else umbel's code (data: its code, exit code, data).
 */
async function mapped<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof RequestError) throw error;
    const e = toUmbelError(error);
    const data = { code: e.code, exitCode: e.exitCode, ...e.data };
    if (e instanceof UsageError) throw RequestError.invalidParams(data, e.message);
    if (e instanceof WorkerNotFoundError) throw new RequestError(-32002, e.message, data);
    throw new RequestError(UMBEL_ERROR_CODE, e.message, data);
  }
}
