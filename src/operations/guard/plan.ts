import { isRecord, parseJson } from "../../core/common/json.ts";
import { UsageError } from "../../core/errors.ts";
import {
  DEFAULT_ACCEPT_TIMEOUT_MS,
  DEFAULT_MAX_ATTEMPTS,
  type GuardedSendInput,
  orphanGuardField,
} from "../../core/guard/fields.ts";
import { compileSchema } from "../../core/guard/json-schema.ts";
import type { GuardRecord } from "../../core/guard/record.ts";
import type { Deps } from "../../core/ports.ts";
import { readJsonOrFile } from "../worker/json-or-file.ts";
import type { Worker } from "../worker/worker.ts";

/** The guardrails of a turn, checked and resolved before anything is typed. */
export type GuardPlan = Pick<GuardRecord, "jsonSchema" | "accept" | "maxAttempts" | "acceptTimeoutMs">;

/**
 * The send's guardrails, or null when it has none. A schema is JSON text, a file (relative to the
 * caller's directory) or an object, and must be a valid JSON Schema; only a worker spawned with
 * --structured has the tool that returns one.
 */
export async function planGuard(
  deps: Deps,
  worker: Worker,
  input: Omit<GuardedSendInput, "name" | "prompt">,
): Promise<GuardPlan | null> {
  const { name } = worker.meta;
  const orphan = orphanGuardField(input);
  if (orphan) throw new UsageError(orphan.message, { name });
  if (input.jsonSchema === undefined && input.accept === undefined) return null;
  const jsonSchema = input.jsonSchema === undefined ? undefined : await resolveSchema(deps, input.jsonSchema);
  if (jsonSchema !== undefined && worker.meta.structured !== true)
    throw new UsageError(
      `worker ${name} has no StructuredOutput tool: --json-schema needs a worker spawned with --structured`,
      { name, flag: "--structured" },
    );
  return {
    ...(jsonSchema === undefined ? {} : { jsonSchema }),
    accept: input.accept ?? [],
    maxAttempts: input.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
    acceptTimeoutMs: input.acceptTimeout ?? DEFAULT_ACCEPT_TIMEOUT_MS,
  };
}

/** A new guard record for a turn sent at `baseline`. */
export function newGuardRecord(plan: GuardPlan, baseline: number, now: number): GuardRecord {
  return {
    version: 1,
    baseline,
    ...plan,
    turns: [baseline],
    attempts: [],
    phase: "turn",
    enforced: false,
    createdAt: new Date(now).toISOString(),
  };
}

/**
 * A structured worker's tool checks each call against the schema of the turn in flight: every send
 * to it says which one (none for a turn without a schema, so a stray call is refused).
 */
export async function recordTurnSchema(
  deps: Deps,
  worker: Worker,
  baseline: number,
  schema: Record<string, unknown> | null,
): Promise<() => Promise<void>> {
  if (worker.meta.structured !== true) return async () => {};
  const before = await deps.guards.readTurnSchema(worker.meta.name);
  await deps.guards.writeTurnSchema(worker.meta.name, { baseline, schema });
  return async () => {
    if (before) await deps.guards.writeTurnSchema(worker.meta.name, before);
  };
}

/**
 * A --json-schema value as the schema object: JSON text, a file (relative to the caller's
 * directory) or the object itself; a usage error in claude's words when it is not a JSON Schema.
 */
export async function resolveSchema(
  deps: Deps,
  value: string | Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const schema = await readSchema(deps, value);
  compileSchema(schema);
  return schema;
}

async function readSchema(
  deps: Deps,
  value: string | Record<string, unknown>,
): Promise<Record<string, unknown>> {
  if (typeof value !== "string") return value;
  const { path, text } = await readJsonOrFile(deps.files, value, deps.cwd);
  if (text === null)
    throw new UsageError(`--json-schema is not valid JSON, and no file ${path} exists`, { path });
  const parsed = parseJson(text);
  if (!isRecord(parsed))
    throw new UsageError(`--json-schema ${path ?? "value"}: not a JSON object`, { path });
  return parsed;
}
