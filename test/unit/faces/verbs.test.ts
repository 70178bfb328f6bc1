import { describe, expect, test } from "bun:test";
import type { z } from "zod";
import { ReadInput } from "../../../src/core/schemas.ts";
import { TOOLS } from "../../../src/faces/mcp/tools.ts";
import { VERBS } from "../../../src/faces/verbs/table.ts";
import { createFakeWorld } from "../../helpers/fake-deps.ts";

/** One table declares every verb; the CLI and the MCP server are both generated from it. */

const verb = (name: string) => {
  const found = VERBS.find((v) => v.name === name);
  if (!found) throw new Error(`no verb ${name}`);
  return found;
};

/** Every field of an object schema, nested objects and lists of objects included, by path. */
function fields(schema: z.ZodType, path = ""): [string, z.ZodType][] {
  const def = schema.def as { type: string; shape?: Record<string, z.ZodType>; element?: z.ZodType };
  const inner = (schema.def as { innerType?: z.ZodType }).innerType;
  if (def.type === "optional" || def.type === "nullable" || def.type === "default")
    return inner ? fields(inner, path) : [];
  if (def.type === "array" && def.element) return fields(def.element, `${path}[]`);
  if (def.type !== "object" || !def.shape) return [];
  return Object.entries(def.shape).flatMap(([key, field]) => [
    [`${path}${path ? "." : ""}${key}`, field] as [string, z.ZodType],
    ...fields(field, `${path}${path ? "." : ""}${key}`),
  ]);
}

function described(field: z.ZodType): boolean {
  for (let s: z.ZodType | undefined = field; s; s = (s.def as { innerType?: z.ZodType }).innerType)
    if (s.description) return true;
  return false;
}

describe("the verb table", () => {
  test("every verb once, in the order the tools are listed", () => {
    expect(VERBS.map((v) => v.name)).toEqual([
      "spawn",
      "send",
      "wait",
      "answer",
      "read",
      "kill",
      "prune",
      "status",
      "ls",
      "capture",
      "logs",
      "keys",
      "attach",
      "doctor",
      "pool",
      "accounts",
      "hosts",
    ]);
  });

  test("the MCP tools are the table's verbs (attach is CLI only), plus help and run", () => {
    const fromTable = VERBS.filter((v) => v.mcp).map((v) => `umbel_${v.name}`);
    expect(fromTable).not.toContain("umbel_attach");
    expect(TOOLS.map((t) => t.name)).toEqual([...fromTable, "umbel_help", "umbel_run"]);
  });

  test.each(
    VERBS.filter((v) => v.mcp && v.name !== "read" && v.name !== "accounts" && v.name !== "hosts").map(
      (v) => [v.name, v] as const,
    ),
  )("umbel_%s's input schema is the verb's own zod object", (name, v) => {
    expect(TOOLS.find((t) => t.name === `umbel_${name}`)?.input).toBe(v.input);
  });

  test("umbel_accounts lists only: accounts login NAME is the CLI's (a sign-in needs a person at a terminal)", () => {
    const tool = TOOLS.find((t) => t.name === "umbel_accounts");
    expect(Object.keys(tool?.input.shape ?? {})).toEqual([]);
    expect(Object.keys(tool?.output.shape ?? {})).toEqual(["accounts"]);
    expect(Object.keys(VERBS.find((v) => v.name === "accounts")?.input.shape ?? {})).toEqual([
      "action",
      "account",
      "args",
    ]);
  });

  test("umbel_hosts lists only: hosts install NAME is the CLI's (installing software is the operator's act)", () => {
    const tool = TOOLS.find((t) => t.name === "umbel_hosts");
    expect(Object.keys(tool?.input.shape ?? {})).toEqual([]);
    expect(Object.keys(tool?.output.shape ?? {})).toEqual(["hosts"]);
    expect(Object.keys(VERBS.find((v) => v.name === "hosts")?.input.shape ?? {})).toEqual([
      "action",
      "host",
      "from",
    ]);
  });

  test("umbel_read's input is the read verb's fields plus the bound", () => {
    const input = TOOLS.find((t) => t.name === "umbel_read")?.input;
    expect(Object.keys(input?.shape ?? {})).toEqual([
      ...Object.keys(ReadInput.shape),
      "mode",
      "maxChars",
      "maxLines",
      "section",
    ]);
  });

  test.each(VERBS.map((v) => [v.name, v] as const))("%s: every output field is described", (name, v) => {
    const undescribed = fields(v.output)
      .filter(([, f]) => !described(f))
      .map(([path]) => path);
    expect({ name, undescribed }).toEqual({ name, undescribed: [] });
  });
});

describe("status without a name", () => {
  const { deps } = createFakeWorld();
  const status = verb("status");

  test("its input takes no name", () => {
    expect(status.input.parse({})).toEqual({});
    expect(status.input.parse({ name: "w1" })).toEqual({ name: "w1" });
  });

  test("is the fleet, rendered as ls renders it", async () => {
    const result = await status.run({}, { deps, terminal: false });
    const ls = await verb("ls").run({}, { deps, terminal: false });
    expect(result).toEqual({ workers: [] });
    expect(result).toEqual(ls);
    expect(status.text(result)).toBe(verb("ls").text(ls));
    expect(status.json(result)).toEqual([]);
    expect(status.exitCode(result)).toBe(0);
  });
});

describe("on a terminal, what a person reads; through a pipe, what a script reads", () => {
  const spawned = {
    name: "rev",
    provider: "claude",
    cwd: "/w/repo",
    sessionId: "s1",
    state: "ready" as const,
    elapsedMs: 2340,
    dialogsAnswered: ["trust"],
    dialogs: [{ dialog: "trust", answer: "Yes, I trust this folder", folders: ["/w/repo"], lasting: true }],
  };

  test("ls and status with no workers: a line on a terminal, nothing through a pipe", () => {
    for (const name of ["ls", "status"]) {
      const v = verb(name);
      expect(v.text({ workers: [] })).toBe("");
      expect(v.cli?.terminal?.({ workers: [] })).toBe("no workers\n");
    }
  });

  test("spawn: one friendly line on a terminal (as umbel_spawn's text), the name through a pipe", () => {
    const v = verb("spawn");
    expect(v.text(spawned)).toBe("rev\n");
    expect(v.cli?.terminal?.(spawned)).toBe(
      'rev is ready (claude in /w/repo, 2.3s; answered: trust). Next: umbel send rev "PROMPT"\n',
    );
  });

  test("capture's --keep-blank comes from its schema (MCP's keepBlank too)", () => {
    expect(Object.keys(verb("capture").input.shape)).toContain("keepBlank");
  });
});
