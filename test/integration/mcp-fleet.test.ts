import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { connectMcp, errorOf, type McpHarness, textOf } from "../helpers/mcp-client.ts";
import { createSandbox, type Sandbox } from "../helpers/sandbox.ts";

// Real workers take seconds; bun's default is 5 s.
setDefaultTimeout(60_000);

/** The caller's side of a fleet over MCP: umbel_wait with names, umbel_answer with its inputId. */

let sb: Sandbox;
let mcp: McpHarness;
beforeAll(async () => {
  sb = await createSandbox();
  mcp = await connectMcp(sb);
  await mcp.ok("umbel_spawn", { name: "m1", permissionMode: "manual" });
  await mcp.ok("umbel_spawn", { name: "m2" });
});
afterAll(async () => {
  await mcp.close();
  await sb.dispose();
});

type Outcome = { name: string; reason: string; exitCode: number; evidence: Record<string, unknown> };
type Many = Outcome & { outcomes?: Outcome[]; pending?: string[] };

describe("a fleet over MCP", () => {
  test("umbel_wait {names, any}: the prompt first; umbel_answer with its inputId; then {names, all}", async () => {
    await mcp.ok("umbel_send", { name: "m1", prompt: "fake:permission" });
    await mcp.ok("umbel_send", { name: "m2", prompt: "fake:slow 4000" });
    const first = await mcp.call("umbel_wait", { names: ["m1", "m2"], any: true, timeout: "30s" });
    const asked = first.structuredContent as Many;
    expect(asked).toMatchObject({ name: "m1", reason: "input", exitCode: 126, pending: ["m2"] });
    const inputId = String(asked.evidence.inputId);
    expect(textOf(first)).toContain(`umbel_answer {name: "m1", choice: "allow", inputId: "${inputId}"}`);

    const answered = await mcp.ok("umbel_answer", { name: "m1", choice: "allow", inputId });
    expect(answered).toMatchObject({ inputId, option: { number: 1, label: "Yes" } });
    const stale = errorOf(await mcp.call("umbel_answer", { name: "m1", choice: "deny", inputId }));
    expect(stale).toMatchObject({ code: "prompt-gone", exitCode: 4 });

    const all = (await mcp.ok("umbel_wait", { names: ["m1", "m2"], all: true, timeout: "30s" })) as Many;
    expect(all.outcomes?.map((o) => [o.name, o.reason])).toEqual([
      ["m1", "stop"],
      ["m2", "stop"],
    ]);
    expect(existsSync(join(sb.work, "x.txt"))).toBe(true);
  });

  test("names without any or all is a usage error that says which to choose", async () => {
    const result = await mcp.call("umbel_wait", { names: ["m1", "m2"] });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("say any (the first to end) or all (every one)");
  });
});
