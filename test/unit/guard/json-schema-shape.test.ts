import { describe, expect, test } from "bun:test";
import { UsageError } from "../../../src/core/errors.ts";
import { compileSchema, MAX_SCHEMA_DEPTH } from "../../../src/core/guard/json-schema.ts";
import { seeded } from "../../helpers/seeded.ts";

/**
 * Issue 22 ("smaller"), kept as probes: the recursive schema `{"type":"object","properties":{"n":
 * {"$ref":"#"}}}` was refused although claude -p --json-schema takes it (2.1.332, measured against
 * the stub: docs/providers.md); a `$ref` loop and a 5,000-deep schema read "Maximum call stack size
 * exceeded". Recursion through a value is taken; a loop that checks no value and a schema nested
 * past MAX_SCHEMA_DEPTH are usage errors that say so; a value too deep to check is a mismatch.
 */

const refused = (schema: unknown): UsageError => {
  try {
    compileSchema(schema);
  } catch (error) {
    if (error instanceof UsageError) return error;
    throw error;
  }
  throw new Error(`taken: ${JSON.stringify(schema).slice(0, 200)}`);
};

describe("recursive schemas", () => {
  const tree = { type: "object", properties: { n: { $ref: "#" } } };
  test.each([
    [{ n: { n: {} } }, []],
    [{ n: { n: 3 } }, ["/n/n: must be object"]],
    [{}, []],
  ])("$ref # through a property: %j → %j", (value, errors) => {
    expect(compileSchema(tree)(value)).toEqual(errors);
  });

  test("through items and $defs, with an $id, compiled again and again (no clash between compiles)", () => {
    const list = { $id: "https://example.com/list", type: "array", items: { $ref: "#" } };
    const node = {
      $defs: {
        node: { type: "object", properties: { kids: { type: "array", items: { $ref: "#/$defs/node" } } } },
      },
      $ref: "#/$defs/node",
    };
    for (let i = 0; i < 3; i++) {
      expect(compileSchema({ ...list, description: `v${i}` })([[[]]])).toEqual([]);
      expect(compileSchema({ ...list, description: `v${i}` })([[1]])).toEqual(["/0/0: must be array"]);
      expect(compileSchema(node)({ kids: [{ kids: [] }, { kids: 1 }] })).toEqual([
        "/kids/1/kids: must be array",
      ]);
    }
  });

  test("a value nested too deeply to check is a mismatch, never a crash", () => {
    let deep: unknown = {};
    for (let i = 0; i < 100_000; i++) deep = { n: deep };
    expect(compileSchema(tree)(deep)).toEqual(["root: the value is nested too deeply to check"]);
  });
});

describe("loops that check no value", () => {
  test.each([
    [{ $ref: "#" }, "# → #"],
    [
      { $defs: { a: { $ref: "#/$defs/b" }, b: { $ref: "#/$defs/a" } }, $ref: "#/$defs/a" },
      "#/$defs/a → #/$defs/b → #/$defs/a",
    ],
    [{ allOf: [{ $ref: "#" }] }, "# → #/allOf/0 → #"],
    [
      { $defs: { a: { anyOf: [{ type: "string" }, { not: { $ref: "#/$defs/a" } }] } }, $ref: "#/$defs/a" },
      "#/$defs/a → #/$defs/a/anyOf/1 → #/$defs/a/anyOf/1/not → #/$defs/a",
    ],
    [{ if: { $ref: "#" } }, "# → #/if → #"],
  ])("%j is a usage error naming the loop", (schema, loop) => {
    const error = refused(schema);
    expect(error.message).toStartWith("--json-schema is not a valid JSON Schema: its $ref loops");
    expect(error.message).toContain(`(${loop})`);
    expect(error.message).not.toContain("call stack");
  });

  test("a $ref inside const, enum, default or examples is data, not a loop", () => {
    const schema = {
      const: { $ref: "#" },
      enum: [{ $ref: "#" }],
      default: { $ref: "#" },
      examples: [{ $ref: "#" }],
    };
    expect(compileSchema(schema)({ $ref: "#" })).toEqual([]);
    expect(compileSchema(schema)({ x: 1 })).toEqual([
      "root: must be equal to constant",
      "root: must be equal to one of the allowed values",
    ]);
  });

  // A seeded table: chains of $defs where the last points back to one of them (a loop) or to a
  // leaf that checks a value (no loop); the chain's links are $ref, allOf, anyOf, oneOf or not.
  const random = seeded(22_009);
  const cases = Array.from({ length: 60 }, (_, i) => {
    const length = 1 + random.int(6);
    const loops = random.int(2) === 0;
    const defs: Record<string, unknown> = { leaf: { type: "string" } };
    const link = (to: string) => {
      const ref = { $ref: `#/$defs/${to}` };
      return random.pick([
        ref,
        { allOf: [ref] },
        { anyOf: [{ type: "number" }, ref] },
        { oneOf: [ref] },
        { not: ref },
      ]);
    };
    for (let k = 0; k < length; k++)
      defs[`d${k}`] = link(k + 1 < length ? `d${k + 1}` : loops ? `d${random.int(length)}` : "leaf");
    return [i, loops, { $defs: defs, $ref: "#/$defs/d0" }] as const;
  });
  test.each(cases)("seeded case %d (loops: %p)", (_i, loops, schema) => {
    if (loops) expect(refused(schema).message).toContain("its $ref loops");
    else expect(() => compileSchema(schema)).not.toThrow();
  });
});

describe("deep schemas", () => {
  const nest = (depth: number, wrap: (inner: unknown) => unknown) => {
    let s: unknown = { type: "string" };
    for (let i = 0; i < depth; i++) s = wrap(s);
    return s;
  };
  test.each([
    ["properties", (s: unknown) => ({ type: "object", properties: { a: s } })],
    ["items", (s: unknown) => ({ items: s })],
    ["allOf", (s: unknown) => ({ allOf: [s] })],
  ] as const)("5,000 deep by %s: a usage error with the limit, never a stack overflow", (_, wrap) => {
    const error = refused(nest(5_000, wrap));
    expect(error.message).toBe(
      `--json-schema is not a valid JSON Schema: it nests more than ${MAX_SCHEMA_DEPTH} levels deep (umbel checks at most ${MAX_SCHEMA_DEPTH})`,
    );
  });

  test("a schema within the limit is taken", () => {
    const v = compileSchema(nest(100, (s) => ({ type: "object", properties: { a: s } })));
    expect(v({ a: { a: 1 } })).toEqual(["/a/a: must be object"]);
  });
});
