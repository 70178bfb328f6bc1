import { z } from "zod";
import { Duration, SendInput } from "../schemas.ts";

/**
 * The two guardrails a caller puts on a turn, one definition for every face: `send` and MCP
 * `umbel_send` (these fields), `umbel -p` (the same names as flags) and a workflow step (`schema:`,
 * `accept:`). They are recorded with the turn when it is sent, and whichever process waits for the
 * turn enforces them (docs/guardrails.md).
 */

/** A JSON Schema: JSON text or a file path (CLI, -p), or the schema object itself (MCP, YAML). */
export const JsonSchemaValue = z
  .union([z.string().min(1), z.record(z.string(), z.unknown())])
  .describe(
    "Structured output: a JSON Schema (JSON text or a file) the turn's result must match; the worker must be spawned with --structured",
  );

export const AcceptCommands = z
  .array(z.string().min(1, "an accept check is an empty command"))
  .min(1)
  .describe(
    "Accept check: a shell command (sh -c, in the worker's cwd, with your authority) that must exit 0 once the turn ends; on failure the worker gets the output and tries again",
  );

export const MaxAttempts = z
  .number()
  .int()
  .min(1)
  .max(100)
  .describe("How many turns the guardrails may take in all, the first included (default 3)");

export const AcceptTimeout = Duration.describe(
  "How long one accept check may run before it counts as failed (default 10m)",
);

export const GuardFields = {
  jsonSchema: JsonSchemaValue.optional(),
  accept: AcceptCommands.optional(),
  maxAttempts: MaxAttempts.optional(),
  acceptTimeout: AcceptTimeout.optional(),
};

/** `send`: a prompt, and the guardrails on its turn. */
export const GuardedSendInput = SendInput.extend(GuardFields);
export type GuardedSendInput = z.infer<typeof GuardedSendInput>;

type GuardField = "jsonSchema" | "accept" | "maxAttempts" | "acceptTimeout";

const FLAGS: Record<GuardField, string> = {
  jsonSchema: "--json-schema",
  accept: "--accept",
  maxAttempts: "--max-attempts",
  acceptTimeout: "--accept-timeout",
};

/**
 * A limit given without the guardrail it bounds (a usage error on every face), or null. `names`
 * spells the fields as the face does (flags by default; a workflow step's keys).
 */
export function orphanGuardField(
  f: Partial<Record<GuardField, unknown>>,
  names: Record<GuardField, string> = FLAGS,
): { field: GuardField; message: string } | null {
  if (f.acceptTimeout !== undefined && f.accept === undefined)
    return { field: "acceptTimeout", message: `${names.acceptTimeout} needs ${names.accept}` };
  if (f.maxAttempts !== undefined && f.accept === undefined && f.jsonSchema === undefined)
    return {
      field: "maxAttempts",
      message: `${names.maxAttempts} needs ${names.accept} or ${names.jsonSchema}`,
    };
  return null;
}

export const DEFAULT_MAX_ATTEMPTS = 3;
export const DEFAULT_ACCEPT_TIMEOUT_MS = 10 * 60_000;
