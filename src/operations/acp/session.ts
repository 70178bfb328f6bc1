import type { SessionUpdate } from "@agentclientprotocol/sdk";
import { createUpdateMapper } from "../../core/acp/updates.ts";
import { UsageError } from "../../core/errors.ts";
import type { Deps } from "../../core/ports.ts";
import { getProvider } from "../../core/providers/registry.ts";
import type { ConversationTurn } from "../../core/providers/transcript-types.ts";
import type { Provider } from "../../core/providers/types.ts";
import type { PermissionMode } from "../../core/schemas.ts";
import type { SpawnInput } from "../../core/spawn/input.ts";
import { findRecordSource, findSessionId } from "../../core/wait/turn.ts";
import { spawnOrClaim } from "../pool/claim.ts";
import { DEFAULT_START_TIMEOUT_MS } from "../spawn/prepare.ts";
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
 * A session's spawn: the client's MCP servers travel in a file of the session's folder (0600), never
 * on the CLI's argv (a stdio server's env may hold a secret); the attachments folder is added with
 * --add-dir where the CLI takes it (in the spawn's permission mode), so the worker reads what a
 * prompt attached.
 */
export async function sessionSpawn(
  deps: Deps,
  input: SpawnInput,
  provider: Provider,
  mcpServers: Readonly<Record<string, unknown>>,
): Promise<SpawnInput> {
  const folder = acpFolder(deps, input.name);
  await deps.files.ownDirectory(folder.dir);
  await deps.files.ownDirectory(folder.attachments);
  let spawned = input;
  if (Object.keys(mcpServers).length > 0) {
    await deps.files.writeAtomic(folder.mcp, `${JSON.stringify({ mcpServers })}\n`);
    spawned = { ...spawned, mcpConfig: [...(spawned.mcpConfig ?? []), folder.mcp] };
  }
  if (addsDirs(provider, input.permissionMode))
    spawned = { ...spawned, addDir: [...(spawned.addDir ?? []), folder.attachments] };
  return spawned;
}

/** Spawns a session's worker (sessionSpawn's input): a spare of the warm pool when one matches. */
export async function openSession(
  deps: Deps,
  input: SpawnInput,
  mcpServers: Readonly<Record<string, unknown>>,
): Promise<Worker> {
  const withProvider = await withDefaultProvider(deps, input);
  const spawn = await sessionSpawn(deps, withProvider, getProvider(withProvider.provider), mcpServers);
  const result = await spawnOrClaim(deps, spawn);
  return loadWorker(deps, result.name);
}

export type LoadedSession = {
  readonly worker: Worker;
  /** A live worker taken over as it is (not this face's to kill), or a dead one's CLI session resumed. */
  readonly adopted: boolean;
  readonly history: readonly ConversationTurn[];
};

/**
 * session/load: a live worker of that name is adopted as it runs; a dead or killed one's CLI is
 * started again in place on its recorded conversation (its folder, events log and provider home
 * kept: gemini keeps its chats there), from `respawn`'s spawn; one that never had a prompt starts
 * fresh. Either way its conversation comes back to replay.
 */
export async function loadSession(
  deps: Deps,
  name: string,
  respawn: (old: Worker) => Promise<SpawnInput>,
): Promise<LoadedSession> {
  const worker = await loadWorker(deps, name);
  const { provider } = worker;
  const events = await readEvents(deps, provider, name);
  const source = findRecordSource(provider, events);
  const text = source ? await deps.records.read(source) : null;
  const history = text === null ? [] : provider.readConversation(text.split("\n"));
  const live = await checkLiveness(deps, worker);
  if (live.alive) return { worker, adopted: true, history };
  // A session that never had a prompt has no conversation to resume: its CLI starts fresh under
  // the same name (acpx's `sessions new` then `prompt` loads one such).
  const sessionId = text === null ? null : (findSessionId(provider, events) ?? worker.meta.sessionId);
  const input = await respawn(worker);
  const resumed = await relaunchWorker(deps, worker, {
    account: worker.meta.account ?? null,
    resume: sessionId ? { sessionId, transcript: null } : null,
    until: deps.clock.now() + (input.startTimeout ?? DEFAULT_START_TIMEOUT_MS),
    kept: { input, sessionTrust: false },
  });
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
 * session/set_mode: the worker's CLI started again in place on the same conversation (the last
 * session its events name) with the new permission mode, from spawn's input as this face holds it.
 * The attachments folder goes where the CLI refuses --add-dir in that mode (codex's read-only plan).
 */
export async function switchMode(
  deps: Deps,
  worker: Worker,
  input: SpawnInput,
  mode: PermissionMode,
): Promise<{ worker: Worker; input: SpawnInput }> {
  const { provider, meta } = worker;
  const refused = provider.checkLaunchOptions?.({ permissionMode: mode });
  if (refused) throw new UsageError(refused, { provider: provider.id, mode });
  const attachments = acpFolder(deps, meta.name).attachments;
  const keepsDirs = addsDirs(provider, mode);
  const addDir = (input.addDir ?? []).filter((dir) => keepsDirs || dir !== attachments);
  const { addDir: _dirs, ...rest } = input;
  const next: SpawnInput = { ...rest, permissionMode: mode, ...(addDir.length > 0 ? { addDir } : {}) };
  const sessionId = findSessionId(provider, await readEvents(deps, provider, meta.name));
  const moved = await relaunchWorker(deps, worker, {
    account: meta.account ?? null,
    resume: sessionId ? { sessionId, transcript: null } : null,
    until: deps.clock.now() + (input.startTimeout ?? DEFAULT_START_TIMEOUT_MS),
    kept: { input: next, sessionTrust: false },
  });
  return { worker: moved, input: next };
}

/** The CLI takes --add-dir (in this permission mode): a session's attachments folder goes with it. */
function addsDirs(provider: Provider, permissionMode?: PermissionMode): boolean {
  return (
    (provider.checkLaunchOptions?.({
      launchFlags: ["--add-dir"],
      ...(permissionMode ? { permissionMode } : {}),
    }) ?? null) === null
  );
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
