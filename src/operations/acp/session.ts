import type { SessionUpdate } from "@agentclientprotocol/sdk";
import { createUpdateMapper } from "../../core/acp/updates.ts";
import { UsageError, WorkerNotFoundError } from "../../core/errors.ts";
import type { Deps } from "../../core/ports.ts";
import type { ConversationTurn } from "../../core/providers/transcript-types.ts";
import type { PermissionMode, SpawnInput } from "../../core/schemas.ts";
import { findRecordSource, findSessionId } from "../../core/wait/turn.ts";
import { spawnOrClaim } from "../pool/claim.ts";
import { relaunchWorker } from "../spawn/relaunch.ts";
import { killWorker } from "../worker/kill.ts";
import { withDefaultProvider } from "../worker/user-config.ts";
import { checkLiveness, loadWorker, readEvents, type Worker } from "../worker/worker.ts";

/**
 * An ACP session is one worker, named by the session id. `umbel acp` spawns it (session/new),
 * adopts or resumes it (session/load), relaunches it on a new permission mode (session/set_mode) and
 * kills the ones it spawned when its client goes.
 */

/** Where a session's own files live: its MCP config and the prompts' attachments. */
export function acpFolder(deps: Deps, name: string): { dir: string; mcp: string; attachments: string } {
  const dir = `${deps.store.root}/acp/${name}`;
  return { dir, mcp: `${dir}/mcp.json`, attachments: `${dir}/files` };
}

/** A session name: `acp-` and 8 hex digits of a fresh uuid. */
export function newSessionName(deps: Deps): string {
  return `acp-${deps.system.uuid().replace(/-/g, "").slice(0, 8)}`;
}

/**
 * Spawns the session's worker. The client's MCP servers travel in a file of the session's folder
 * (0600), never on the CLI's argv (a stdio server's env may hold a secret); the attachments folder
 * is added with --add-dir where the CLI takes it, so the worker reads what a prompt attached.
 */
export async function openSession(
  deps: Deps,
  input: SpawnInput,
  mcpServers: Readonly<Record<string, unknown>>,
  addsDirs: boolean,
): Promise<Worker> {
  const folder = acpFolder(deps, input.name);
  await deps.files.ownDirectory(folder.dir);
  await deps.files.ownDirectory(folder.attachments);
  const withMcp =
    Object.keys(mcpServers).length === 0
      ? input
      : await (async () => {
          await deps.files.writeAtomic(folder.mcp, `${JSON.stringify({ mcpServers })}\n`);
          return { ...input, mcpConfig: [...(input.mcpConfig ?? []), folder.mcp] };
        })();
  const spawned = addsDirs
    ? { ...withMcp, addDir: [...(withMcp.addDir ?? []), folder.attachments] }
    : withMcp;
  const result = await spawnOrClaim(deps, await withDefaultProvider(deps, spawned));
  return loadWorker(deps, result.name);
}

export type LoadedSession = {
  readonly worker: Worker;
  /** A live worker taken over as it is (not this face's to kill), or a dead one's CLI session resumed. */
  readonly adopted: boolean;
  readonly history: readonly ConversationTurn[];
};

/**
 * session/load: a live worker of that name is adopted as it runs; a dead or killed one's CLI session
 * is resumed in a new worker of the same name (its conversation read first: the purge removes its
 * events log, not the CLI's record). Either way its conversation comes back to replay.
 */
export async function loadSession(
  deps: Deps,
  name: string,
  respawn: (old: Worker, cliSession: string) => SpawnInput,
  /** The client's MCP servers for a resumed worker (claude's config shape), and whether --add-dir is taken. */
  launch: (old: Worker) => { mcpServers: Readonly<Record<string, unknown>>; addsDirs: boolean },
): Promise<LoadedSession> {
  const worker = await loadWorker(deps, name);
  const { provider } = worker;
  const events = await readEvents(deps, provider, name);
  const source = findRecordSource(provider, events);
  const text = source ? await deps.records.read(source) : null;
  const history = text === null ? [] : provider.readConversation(text.split("\n"));
  const live = await checkLiveness(deps, worker);
  if (live.alive) return { worker, adopted: true, history };
  const cliSession = findSessionId(provider, events) ?? worker.meta.sessionId;
  if (text === null || cliSession === undefined)
    throw new WorkerNotFoundError(`session ${name} has no conversation left to resume`, { name });
  await killWorker(deps, { name, purge: true });
  const { mcpServers, addsDirs } = launch(worker);
  const resumed = await openSession(deps, respawn(worker, cliSession), mcpServers, addsDirs);
  return { worker: resumed, adopted: false, history };
}

/** Every worker of the state root as a session a client may load, newest first; `cwd` filters. */
export async function listSessions(
  deps: Deps,
  cwd: string | null,
): Promise<{ sessionId: string; cwd: string; title: string; updatedAt: string }[]> {
  const found = await Promise.all(
    (await deps.store.listNames()).map(async (name) => {
      const meta = await deps.store.readMeta(name).catch(() => null);
      return meta ? [meta] : [];
    }),
  );
  return found
    .flat()
    .filter((meta) => cwd === null || meta.cwd === cwd)
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
    .map((meta) => ({
      sessionId: meta.name,
      cwd: meta.cwd,
      title: `${meta.name} (${meta.provider}${meta.state === "killed" ? ", killed" : ""})`,
      updatedAt: meta.createdAt,
    }));
}

/** A conversation as the updates that replay it: each prompt, then what the turn showed. */
export function replayUpdates(history: readonly ConversationTurn[]): SessionUpdate[] {
  const mapper = createUpdateMapper();
  return history.flatMap((turn): SessionUpdate[] => [
    { sessionUpdate: "user_message_chunk", content: { type: "text", text: turn.prompt } },
    ...turn.messages.flatMap((message) => mapper.push(message)),
  ]);
}

/**
 * session/set_mode: the worker's CLI started again in place on the same conversation with the new
 * permission mode (spawn's input as this face holds it). A worker with a turn on is refused.
 */
export async function switchMode(
  deps: Deps,
  worker: Worker,
  input: SpawnInput,
  mode: PermissionMode,
): Promise<{ worker: Worker; input: SpawnInput }> {
  const { provider, meta } = worker;
  const events = await readEvents(deps, provider, meta.name);
  const source = findRecordSource(provider, events);
  const sessionId = findSessionId(provider, events) ?? meta.sessionId;
  const next: SpawnInput = { ...input, permissionMode: mode };
  const refused = provider.checkLaunchOptions?.({ permissionMode: mode });
  if (refused) throw new UsageError(refused, { provider: provider.id, mode });
  const moved = await relaunchWorker(deps, worker, {
    account: meta.account ?? null,
    resume: source?.kind === "file" && sessionId ? { sessionId, transcript: source.path } : null,
    until: deps.clock.now() + 60_000,
    kept: { input: next, sessionTrust: false },
  });
  return { worker: moved, input: next };
}

/**
 * The workers this face spawned, killed as kill does (tombstones kept), each on its own; every
 * session's MCP config goes with the client (a server's env may hold a secret).
 */
export async function closeSessions(
  deps: Deps,
  spawned: readonly string[],
  all: readonly string[],
): Promise<void> {
  await Promise.all(spawned.map((name) => killWorker(deps, { name }).catch(() => undefined)));
  await Promise.all(all.map((name) => deps.files.remove(acpFolder(deps, name).mcp).catch(() => undefined)));
}
