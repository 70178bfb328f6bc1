import {
  type AgentApp,
  type AgentContext,
  agent,
  type LoadSessionResponse,
  type McpServer,
  PROTOCOL_VERSION,
  RequestError,
} from "@agentclientprotocol/sdk";
import { mcpCapabilities, planMcpServers } from "../../core/acp/mcp.ts";
import {
  type AcpFlags,
  type AcpPromptMeta,
  AcpSessionMeta,
  initializeResult,
} from "../../core/acp/session.ts";
import { formatWorkerRef, parseWorkerRef } from "../../core/hosts/schema.ts";
import type { Deps } from "../../core/ports.ts";
import { getProvider } from "../../core/providers/registry.ts";
import { PermissionMode, type ProviderId } from "../../core/schemas.ts";
import type { SpawnInput } from "../../core/spawn/input.ts";
import {
  closeSessions,
  listSessions,
  loadSession,
  newSessionName,
  openSession,
  replayUpdates,
  sessionSpawn,
  switchMode,
} from "../../operations/acp/session.ts";
import type { Worker } from "../../operations/worker/worker.ts";
import { runPrompt } from "./prompt.ts";
import { createRemoteHosts } from "./remote.ts";
import { checkMcp, mapped, modesOf, parseMeta, type Session, takesImages, withSignal } from "./request.ts";

/**
 * `umbel acp`'s agent: ACP's methods as the operations' calls (spawn, send and follow, answer,
 * keys, relaunch, kill). It keeps the connection's sessions in memory, one worker each; the worker
 * itself lives in tmux and the state root, as every worker does.
 */

export type AcpAgent = {
  readonly app: AgentApp;
  /** The names of the workers this face spawned and that are still its own. */
  spawned(): string[];
  /** Every session's name. */
  sessions(): string[];
  /** Ends every running prompt (the client went away). */
  abortPrompts(): void;
  /** Ends the hosts' connections (each host's umbel kills the workers it spawned). */
  closeHosts(): Promise<void>;
};

/** A session on a host: its own name there, and the host's connection relays it. */
type RemoteSession = { readonly host: string; readonly id: string };

export function createAcpAgent(
  deps: Deps,
  options: {
    readonly version: string;
    readonly flags: AcpFlags;
    readonly provider: ProviderId;
    /** The face's argv for a host's own `umbel acp` (a usage error where it cannot travel). */
    readonly hostWords: () => readonly string[];
  },
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
  const remote = new Map<string, RemoteSession>();
  let local: AgentContext | null = null;
  const hosts = createRemoteHosts(
    deps,
    () => options.hostWords(),
    () => {
      if (!local) throw new Error("no client connection");
      return local;
    },
  );
  /** A session on a host: its connection's agent and the session's name there. */
  const onHost = async (id: string) => {
    const found = remote.get(id);
    return found ? { ...found, agent: await hosts.agentOf(found.host) } : null;
  };
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
    // A worker's spawn as this face would make it: the face's flags under what its meta records.
    const base = (w: Worker): SpawnInput => ({
      ...spawnFlags,
      name: w.meta.name,
      provider: w.provider.id,
      cwd: w.meta.cwd,
      ...(w.meta.model ? { model: w.meta.model } : {}),
      ...(w.meta.permissionMode ? { permissionMode: w.meta.permissionMode } : {}),
    });
    let respawned: SpawnInput | null = null;
    const loaded = await loadSession(withSignal(deps, signal), params.sessionId, async (old) => {
      const mcp = planMcpServers([...params.mcpServers], checkMcp(old.provider));
      respawned = await sessionSpawn(deps, base(old), old.provider, mcp.servers);
      return respawned;
    });
    const { worker } = loaded;
    sessions.set(worker.meta.name, {
      worker,
      input: respawned ?? base(worker),
      spawned: !loaded.adopted,
      prompt: null,
      prompts: 0,
    });
    return loaded;
  };
  const app = agent({ name: "umbel" })
    .onConnect((connection) => {
      local = connection.client;
    })
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
        const { host, ...chosen } = parseMeta(params._meta, AcpSessionMeta);
        if (host !== undefined) {
          const there = await hosts.agentOf(host);
          const made = await there.request(
            "session/new",
            { ...params, _meta: { ...params._meta, umbel: chosen } },
            { cancellationSignal: signal },
          );
          const sessionId = formatWorkerRef(host, made.sessionId);
          remote.set(sessionId, { host, id: made.sessionId });
          return { ...made, sessionId };
        }
        const input: SpawnInput = {
          ...spawnFlags,
          ...chosen,
          provider: chosen.provider ?? options.provider,
          name: newSessionName(deps),
          cwd: params.cwd,
        };
        const provider = getProvider(input.provider);
        const mcp = planMcpServers(params.mcpServers as McpServer[], checkMcp(provider));
        const worker = await openSession(withSignal(deps, signal), input, mcp.servers);
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
        const ref = parseWorkerRef(params.sessionId);
        if (ref.host !== null) {
          const there = await hosts.agentOf(ref.host);
          const loaded = await there.request(
            "session/load",
            { ...params, sessionId: ref.name },
            { cancellationSignal: signal },
          );
          await hosts.flushed(ref.host);
          remote.set(params.sessionId, { host: ref.host, id: ref.name });
          return loaded ?? {};
        }
        const { worker, history } = await open(params, signal);
        for (const update of replayUpdates(history))
          await client.notify("session/update", { sessionId: params.sessionId, update });
        return { modes: modesOf(worker) };
      }),
    )
    // session/load without the replay: the client keeps the conversation it showed.
    .onRequest("session/resume", ({ params, signal }) =>
      mapped(async () => {
        const ref = parseWorkerRef(params.sessionId);
        if (ref.host === null)
          return {
            modes: modesOf((await open({ ...params, mcpServers: params.mcpServers ?? [] }, signal)).worker),
          };
        const there = await hosts.agentOf(ref.host);
        const resumed = await there.request(
          "session/resume",
          { ...params, sessionId: ref.name },
          { cancellationSignal: signal },
        );
        remote.set(params.sessionId, { host: ref.host, id: ref.name });
        return resumed;
      }),
    )
    .onRequest("session/list", ({ params }) =>
      mapped(async () => ({ sessions: await listSessions(deps, params.cwd ?? null) })),
    )
    .onRequest("session/close", ({ params }) =>
      mapped(async () => {
        const there = await onHost(params.sessionId);
        if (there) {
          remote.delete(params.sessionId);
          return (await there.agent.request("session/close", { ...params, sessionId: there.id })) ?? {};
        }
        const s = session(params.sessionId);
        s.prompt?.abort();
        sessions.delete(params.sessionId);
        await closeSessions(deps, s.spawned ? [params.sessionId] : [], [params.sessionId]);
        return {};
      }),
    )
    .onRequest("session/prompt", ({ params, signal, client }) =>
      mapped(async () => {
        const there = await onHost(params.sessionId);
        if (there) {
          const ended = await there.agent.request(
            "session/prompt",
            { ...params, sessionId: there.id },
            { cancellationSignal: signal },
          );
          await hosts.flushed(there.host);
          return ended;
        }
        return runPrompt(deps, session(params.sessionId), { params, signal, client }, turnFlags);
      }),
    )
    .onNotification("session/cancel", async ({ params }) => {
      sessions.get(params.sessionId)?.prompt?.abort();
      const there = await onHost(params.sessionId).catch(() => null);
      if (there) await there.agent.notify("session/cancel", { sessionId: there.id });
    })
    .onRequest("session/set_mode", ({ params, signal, client }) =>
      mapped(async () => {
        const there = await onHost(params.sessionId);
        if (there)
          return (
            (await there.agent.request(
              "session/set_mode",
              { ...params, sessionId: there.id },
              { cancellationSignal: signal },
            )) ?? {}
          );
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
    closeHosts: () => hosts.closeAll(),
  };
}
