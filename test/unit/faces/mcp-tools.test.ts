import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { findSection } from "../../../src/core/common/markdown.ts";
import { helpTopic, SERVER_INSTRUCTIONS, toolDescription } from "../../../src/faces/mcp/help.ts";
import { TOOLS } from "../../../src/faces/mcp/tools.ts";

/** The tool table, its prose (help/tools.md) and docs/mcp.md stay in step. */

const DOCS = readFileSync(join(import.meta.dir, "..", "..", "..", "docs", "mcp.md"), "utf8");

describe("MCP tools", () => {
  test("one umbel_ tool per verb, each described", () => {
    expect(TOOLS.map((t) => t.name)).toEqual([
      "umbel_spawn",
      "umbel_send",
      "umbel_wait",
      "umbel_answer",
      "umbel_read",
      "umbel_kill",
      "umbel_prune",
      "umbel_status",
      "umbel_ls",
      "umbel_capture",
      "umbel_logs",
      "umbel_keys",
      "umbel_doctor",
      "umbel_pool",
      "umbel_accounts",
      "umbel_hosts",
      "umbel_help",
      "umbel_run",
    ]);
    for (const tool of TOOLS) expect(toolDescription(tool.name).length).toBeGreaterThan(40);
  });

  test.each(TOOLS.map((t) => [t.name, t] as const))(
    "docs/mcp.md documents %s: every input and output",
    (name, tool) => {
      const section = findSection(DOCS, name)?.text ?? "";
      expect(section).toContain(`### ${name}`);
      for (const key of [...Object.keys(tool.input.shape), ...Object.keys(tool.output.shape)])
        expect({ name, key, documented: section.includes(`\`${key}\``) }).toEqual({
          name,
          key,
          documented: true,
        });
    },
  );

  test("read-only tools say so; the ones that change things do not", () => {
    const readOnly = TOOLS.filter((t) => t.annotations.readOnlyHint).map((t) => t.name);
    expect(readOnly.sort()).toEqual(
      [
        "umbel_accounts",
        "umbel_capture",
        "umbel_doctor",
        "umbel_help",
        "umbel_hosts",
        "umbel_logs",
        "umbel_ls",
        "umbel_read",
        "umbel_status",
      ].sort(),
    );
    for (const tool of TOOLS.filter((t) => !t.annotations.readOnlyHint))
      expect(typeof tool.annotations.destructiveHint).toBe("boolean");
  });

  test("instructions are short; the overview lists every topic", () => {
    expect(SERVER_INSTRUCTIONS.length).toBeLessThan(1500);
    const overview = helpTopic(undefined);
    for (const topic of overview.topics) expect(overview.text).toContain(`- ${topic}:`);
  });
});
