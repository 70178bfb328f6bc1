import type { Ajv, ErrorObject } from "ajv";
import { UsageError } from "../errors.ts";
import { findRefLoop, MAX_SCHEMA_DEPTH, nestsDeeperThan } from "./schema-shape.ts";

export { MAX_SCHEMA_DEPTH };

/**
 * JSON Schema for structured output, as `claude -p --json-schema` applies it (2.1.332, measured
 * against the stub model: docs/providers.md):
 * - every error is reported, each as `<instance path or "root">: <message>`, joined by ", ";
 * - `format` is not checked (an "email" of "notanemail" was accepted);
 * - a draft-07 `$schema` is taken as well as 2020-12 (the default);
 * - a schema that is not valid reads `data/type must be …` (ajv's own error text);
 * - a recursive schema (`properties.n: {"$ref":"#"}`) is taken. Where claude says "Maximum call
 *   stack size exceeded" (a `$ref` loop, a 5,000-deep schema), umbel says what is wrong
 *   (schema-shape.ts), and `{"$ref":"#"}`, which claude takes and then fails every call with, is
 *   refused as the loop it is.
 * Pure: ajv compiles each schema to a function (code generation, no I/O).
 */

export type SchemaValidator = (value: unknown) => string[];

/** A validator for `schema`, or a UsageError in claude's words when it is not a JSON Schema. */
export function compileSchema(schema: unknown, flag = "--json-schema"): SchemaValidator {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema))
    throw new UsageError(`${flag} is not a valid JSON Schema: it must be a JSON object`, { flag });
  // Before anything recursive (JSON.stringify, ajv) sees it.
  if (nestsDeeperThan(schema, MAX_SCHEMA_DEPTH))
    throw new UsageError(
      `${flag} is not a valid JSON Schema: it nests more than ${MAX_SCHEMA_DEPTH} levels deep (umbel checks at most ${MAX_SCHEMA_DEPTH})`,
      { flag, maxDepth: MAX_SCHEMA_DEPTH },
    );
  const loop = findRefLoop(schema);
  if (loop)
    throw new UsageError(
      `${flag} is not a valid JSON Schema: its $ref loops back without checking any value (${loop.join(" → ")})`,
      { flag, loop },
    );
  const key = JSON.stringify(schema);
  const known = compiled.get(key);
  if (known) return known;
  const validator = compileNew(schema, flag);
  // A worker's tool checks every call of a turn against one schema: compiling it costs ~100 ms.
  if (compiled.size >= CACHE_SIZE) compiled.delete(compiled.keys().next().value ?? "");
  compiled.set(key, validator);
  return validator;
}

const CACHE_SIZE = 32;
const compiled = new Map<string, SchemaValidator>();

function compileNew(schema: object, flag: string): SchemaValidator {
  const ajv = ajvFor((schema as { $schema?: unknown }).$schema);
  if (!ajv.validateSchema(schema)) {
    throw new UsageError(`${flag} is not a valid JSON Schema: ${ajv.errorsText(ajv.errors)}`, {
      flag,
      errors: ajv.errors ?? [],
    });
  }
  let validate: ReturnType<Ajv["compile"]>;
  try {
    validate = ajv.compile(schema);
  } catch (error) {
    // A $ref that resolves nowhere passes the meta-schema and fails here.
    const why = error instanceof Error ? error.message : String(error);
    throw new UsageError(`${flag} is not a valid JSON Schema: ${why}`, { flag });
  } finally {
    // Compiled with its root registered (so `$ref: "#"` resolves), then forgotten: two schemas with
    // one $id must not collide in the shared instance.
    ajv.removeSchema(schema);
  }
  return (value) => {
    try {
      return validate(value) ? [] : (validate.errors ?? []).map(describeError);
    } catch (error) {
      // A recursive schema checks a value as deep as it nests: 100,000 levels overflow the stack.
      if (error instanceof RangeError) return ["root: the value is nested too deeply to check"];
      throw error;
    }
  };
}

/** claude's tool error for an object that does not match (the model sees it and tries again). */
export function schemaMismatchText(errors: readonly string[]): string {
  return `Output does not match required schema: ${errors.join(", ")}`;
}

function describeError(error: ErrorObject): string {
  return `${error.instancePath || "root"}: ${error.message ?? error.keyword}`;
}

const DRAFT_07 = /json-schema\.org\/draft-0[4-7]\/schema/;
const DRAFT_2019 = /json-schema\.org\/draft\/2019-09\/schema/;

/** One ajv per draft, made on first use (its meta-schemas take most of a compile's time). */
const instances = new Map<string, Ajv>();

function ajvFor(dialect: unknown): Ajv {
  const uri = typeof dialect === "string" ? dialect : "";
  const draft = DRAFT_07.test(uri) ? "07" : DRAFT_2019.test(uri) ? "2019" : "2020";
  const known = instances.get(draft);
  if (known) return known;
  // strict: false — real schemas carry keywords ajv's strict mode refuses (examples, x-…). Each
  // compile registers its root (addUsedSchema, the default: without it `$ref: "#"` resolved
  // nowhere) and removes it again (compileNew).
  const options = { allErrors: true, strict: false, validateFormats: false } as const;
  // Required here, not imported: ajv's evaluation (~2 ms) is then paid by the first schema only,
  // not by every start of umbel whose verb could take one (status, ls, read).
  const ajv =
    draft === "07"
      ? new (require("ajv") as typeof import("ajv")).Ajv(options)
      : draft === "2019"
        ? new (require("ajv/dist/2019.js") as typeof import("ajv/dist/2019.js")).Ajv2019(options)
        : new (require("ajv/dist/2020.js") as typeof import("ajv/dist/2020.js")).Ajv2020(options);
  instances.set(draft, ajv);
  return ajv;
}
