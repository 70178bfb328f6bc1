import { describe, expect, test } from "bun:test";
import { AcpFlags, AcpSessionMeta, initializeResult, sessionModes } from "../../../src/core/acp/session.ts";

describe("an ACP session's choices", () => {
  test("_meta.umbel takes spawn's provider, model, permissionMode and account, by spawn's schema", () => {
    expect(
      AcpSessionMeta.parse({ provider: "codex", model: "gpt-5", permissionMode: "plan", account: "work" }),
    ).toEqual({
      provider: "codex",
      model: "gpt-5",
      permissionMode: "plan",
      account: "work",
    });
    expect(AcpSessionMeta.safeParse({ provider: "nope" }).success).toBe(false);
    expect(AcpSessionMeta.safeParse({ cwd: "/elsewhere" }).success).toBe(false);
  });

  test("the face's flags are spawn's less what a session decides, plus each prompt's limits", () => {
    expect(Object.keys(AcpFlags.shape)).not.toContain("name");
    expect(Object.keys(AcpFlags.shape)).not.toContain("cwd");
    expect(Object.keys(AcpFlags.shape)).not.toContain("resumeSession");
    expect(AcpFlags.parse({ provider: "claude", maxTurns: 3, timeout: "10m" })).toEqual({
      provider: "claude",
      maxTurns: 3,
      timeout: 600_000,
    });
  });

  test("the modes are the permission modes the provider's launch takes", () => {
    const modes = sessionModes("plan", (mode) => mode !== "dontAsk");
    expect(modes.currentModeId).toBe("plan");
    expect(modes.availableModes.map((m) => m.id)).toEqual([
      "default",
      "manual",
      "auto",
      "acceptEdits",
      "plan",
      "bypassPermissions",
    ]);
    expect(sessionModes(undefined, () => false)).toEqual({
      currentModeId: "default",
      availableModes: [
        { id: "default", name: "Default", description: "The CLI's own default, as in its TUI" },
      ],
    });
  });

  test("initialize says what really works", () => {
    expect(initializeResult(1, { version: "0.1.0", images: false, mcp: { http: true, sse: false } })).toEqual(
      {
        protocolVersion: 1,
        agentCapabilities: {
          loadSession: true,
          sessionCapabilities: { list: {}, close: {}, resume: {} },
          promptCapabilities: { image: false, audio: false, embeddedContext: true },
          mcpCapabilities: { http: true, sse: false },
        },
        agentInfo: { name: "umbel", title: "umbel", version: "0.1.0" },
        authMethods: [],
      },
    );
  });
});
