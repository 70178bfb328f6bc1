import { describe, expect, test } from "bun:test";
import {
  GEMINI_AUTH_FILES,
  type GeminiHomeInput,
  type HomeEntry,
  markerCommand,
  planGeminiHome,
  userGeminiDir,
} from "../../../src/core/providers/gemini/home.ts";

const INPUT: GeminiHomeInput = {
  home: "/state/sessions/w1/gemini",
  userDir: "/home/u/.gemini",
  userSettings: null,
  userFiles: [],
  hookCommand: "sh '/state/bin/hook-abc.sh' '/state/sessions/w1/events/hooks.jsonl'",
  eventsLog: "/state/sessions/w1/events/hooks.jsonl",
  envNames: [],
};

// biome-ignore lint/suspicious/noExplicitAny: parsed settings.json, read field by field
function settingsOf(entries: readonly HomeEntry[]): Record<string, any> {
  const file = entries.find((entry) => entry.kind === "file" && entry.path.endsWith("/settings.json"));
  if (file?.kind !== "file") throw new Error("no settings.json planned");
  return JSON.parse(file.content);
}

describe("gemini home (GEMINI_CLI_HOME)", () => {
  test("layout: the home, its .gemini dir and a private settings.json", () => {
    const { entries } = planGeminiHome({ ...INPUT, envNames: ["GEMINI_API_KEY"] });
    expect(entries.map((entry) => [entry.kind, entry.path, "mode" in entry ? entry.mode : null])).toEqual([
      ["dir", "/state/sessions/w1/gemini", 0o700],
      ["dir", "/state/sessions/w1/gemini/.gemini", 0o700],
      ["file", "/state/sessions/w1/gemini/.gemini/settings.json", 0o600],
    ]);
  });

  test("umbel's hooks, one group per event; BeforeModel as a bare marker", () => {
    const settings = settingsOf(planGeminiHome(INPUT).entries);
    expect(Object.keys(settings.hooks)).toEqual([
      "SessionStart",
      "BeforeAgent",
      "AfterAgent",
      "Notification",
      "BeforeTool",
      "AfterTool",
      "SessionEnd",
      "BeforeModel",
    ]);
    expect(settings.hooks.AfterAgent).toEqual([
      {
        matcher: "",
        hooks: [
          {
            type: "command",
            name: "umbel-AfterAgent",
            command: `${INPUT.hookCommand} AfterAgent`,
            timeout: 10_000,
          },
        ],
      },
    ]);
    expect(settings.hooks.BeforeModel[0].hooks[0].command).toBe(
      markerCommand("BeforeModel", INPUT.eventsLog),
    );
    expect(settings.hooksConfig).toEqual({ enabled: true });
  });

  test("the marker hook: drains its payload, appends one short line", () => {
    expect(markerCommand("BeforeModel", "/s/it's/hooks.jsonl")).toBe(
      `cat >/dev/null; printf '%s\\n' '{"hook_event_name":"BeforeModel"}' >> '/s/it'\\''s/hooks.jsonl'`,
    );
  });

  test("the user's settings are kept, umbel's added on top", () => {
    const user = {
      security: { auth: { selectedType: "oauth-personal" }, folderTrust: { enabled: true } },
      mcpServers: { fs: { command: "mcp-fs" } },
      hooks: { AfterAgent: [{ matcher: "", hooks: [{ type: "command", command: "notify-send done" }] }] },
      hooksConfig: { enabled: false, disabled: ["umbel-AfterAgent", "mine"] },
      general: { vimMode: true, enableAutoUpdate: true },
      ui: { theme: "Dracula" },
    };
    const settings = settingsOf(planGeminiHome({ ...INPUT, userSettings: JSON.stringify(user) }).entries);
    expect(settings.security.auth.selectedType).toBe("oauth-personal");
    expect(settings.security.folderTrust).toEqual({ enabled: true });
    expect(settings.mcpServers).toEqual(user.mcpServers);
    expect(
      settings.hooks.AfterAgent.map((group: { hooks: { command: string }[] }) => group.hooks[0]?.command),
    ).toEqual(["notify-send done", `${INPUT.hookCommand} AfterAgent`]);
    expect(settings.hooksConfig).toEqual({ enabled: true, disabled: ["mine"] });
    expect(settings.general).toEqual({
      vimMode: true,
      enableAutoUpdate: false,
      enableAutoUpdateNotification: false,
    });
    expect(settings.ui).toEqual({ theme: "Dracula", hideBanner: true, hideTips: true });
    expect(settings.ide).toEqual({ enabled: false, hasSeenNudge: true });
  });

  test.each([
    [["GEMINI_API_KEY"], "gemini-api-key"],
    [["GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_CLOUD_PROJECT"], "vertex-ai"],
    [[], undefined],
  ])("no method in the user's settings: env %o → selectedType %s", (envNames, selected) => {
    const plan = planGeminiHome({ ...INPUT, envNames });
    expect(settingsOf(plan.entries).security.auth.selectedType).toBe(selected);
  });

  test("auth files the user has are linked, not copied; others are not invented", () => {
    const { entries } = planGeminiHome({
      ...INPUT,
      userFiles: ["oauth_creds.json", "google_accounts.json", "x.json"],
    });
    expect(entries.filter((entry) => entry.kind === "link")).toEqual([
      {
        kind: "link",
        path: "/state/sessions/w1/gemini/.gemini/oauth_creds.json",
        target: "/home/u/.gemini/oauth_creds.json",
      },
      {
        kind: "link",
        path: "/state/sessions/w1/gemini/.gemini/google_accounts.json",
        target: "/home/u/.gemini/google_accounts.json",
      },
    ]);
    expect(GEMINI_AUTH_FILES).toContain("gemini-credentials.json");
  });

  test("settings with comments parse; a broken file is ignored", () => {
    const commented = '{\n  // mine\n  "ui": { "theme": "a//b" } /* end */\n}';
    expect(settingsOf(planGeminiHome({ ...INPUT, userSettings: commented }).entries).ui.theme).toBe("a//b");
    const broken = planGeminiHome({ ...INPUT, userSettings: "{ nope" });
    expect(settingsOf(broken.entries).hooksConfig.enabled).toBe(true);
  });

  test.each([
    [{ HOME: "/home/u" }, "/home/u/.gemini"],
    [{ HOME: "/home/u", GEMINI_CLI_HOME: "/alt/" }, "/alt/.gemini"],
    [{}, null],
  ])("the user's gemini dir from %o", (env, dir) => {
    expect(userGeminiDir(env)).toBe(dir);
  });
});
