import { describe, expect, test } from "bun:test";
import { describeProviders, listProviders } from "../../../src/core/providers/registry.ts";
import { renderHelp } from "../../../src/faces/cli/help.ts";
import { helpTopic, SERVER_INSTRUCTIONS, toolDescription } from "../../../src/faces/mcp/help.ts";

/**
 * Where umbel says which CLIs it drives, the list is the registry's (it once said "Claude Code
 * today" with four providers registered): the top-level --help header, the MCP server's
 * instructions and umbel_spawn's description.
 */
const providers = listProviders().map((p) => [p.id, p] as const);

describe("the provider list comes from the registry", () => {
  test("describeProviders names every registered provider, with its --provider id", () => {
    expect(describeProviders()).toBe(
      "Claude Code (claude), Codex (codex), Gemini CLI (gemini) and opencode (opencode)",
    );
  });

  test.each(providers)("%s is named in --help, the MCP instructions and umbel_spawn", (id, provider) => {
    const header = renderHelp("0.0.0").split("\n")[0] ?? "";
    expect(header).toContain(provider.displayName);
    for (const text of [SERVER_INSTRUCTIONS, toolDescription("umbel_spawn"), helpTopic(undefined).text]) {
      expect(text).toContain(`${provider.displayName} (${id})`);
    }
  });

  test("no text claims a single provider any more", () => {
    for (const text of [renderHelp("0.0.0"), SERVER_INSTRUCTIONS, toolDescription("umbel_spawn")]) {
      expect(text).not.toContain("today");
      expect(text).not.toContain("{providers}");
    }
  });
});
