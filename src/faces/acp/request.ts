import { RequestError } from "@agentclientprotocol/sdk";
import type { z } from "zod";
import { sessionModes } from "../../core/acp/session.ts";
import { UMBEL_ERROR_CODE } from "../../core/acp/stop.ts";
import { toUmbelError, UsageError, WorkerNotFoundError } from "../../core/errors.ts";
import type { Deps } from "../../core/ports.ts";
import type { Provider } from "../../core/providers/types.ts";
import type { SpawnInput } from "../../core/spawn/input.ts";
import type { Worker } from "../../operations/worker/worker.ts";

/** What the face holds of a session of this connection whose worker is on this machine. */
export type Session = {
  worker: Worker;
  /** The spawn as this face holds it (session/set_mode starts the CLI again from it). */
  input: SpawnInput;
  /** Spawned by this face (killed when the client goes); false: adopted by session/load. */
  readonly spawned: boolean;
  prompt: AbortController | null;
  prompts: number;
};

/**
 * umbel's typed errors as JSON-RPC errors the client can branch on: bad input is invalid params, an
 * unknown worker is resource-not-found, anything else umbel's code (data: its code, exit code, data).
 */
export async function mapped<T>(run: () => Promise<T>): Promise<T> {
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

/** A request's `_meta.umbel`, by the schema the face's own flags share. */
export function parseMeta<S extends z.ZodType<Record<string, unknown>>>(
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

export function withSignal(deps: Deps, signal: AbortSignal): Deps {
  return { ...deps, signal: deps.signal ? AbortSignal.any([deps.signal, signal]) : signal };
}

export function defined<T extends Record<string, unknown>>(record: T): Partial<T> {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/** The session's permission modes: those its provider's launch takes. */
export function modesOf(worker: Worker) {
  const check = worker.provider.checkLaunchOptions;
  return sessionModes(
    worker.meta.permissionMode,
    (mode) => !check || check({ permissionMode: mode }) === null,
  );
}

/** MCP servers checked as the provider's launch checks them. */
export function checkMcp(provider: Provider) {
  return (servers: Readonly<Record<string, unknown>>) =>
    provider.checkLaunchOptions?.({ mcpServers: servers, launchFlags: ["--mcp-config"] }) ?? null;
}

/** The provider's read tool shows an image file to the model (claude's Read). */
export function takesImages(provider: Provider): boolean {
  return provider.tools.readsImages === true;
}
