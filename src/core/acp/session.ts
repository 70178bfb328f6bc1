import type { InitializeResponse, SessionModeState } from "@agentclientprotocol/sdk";
import { z } from "zod";
import { GuardFields } from "../guard/fields.ts";
import { HostName } from "../hosts/schema.ts";
import { Duration, PermissionMode } from "../schemas.ts";
import { SpawnInput } from "../spawn/input.ts";

/**
 * What a session of `umbel acp` runs: the face's flags (spawn's, parsed once by spawn's schema),
 * under what a `session/new` asks in its `_meta.umbel` (the same fields, by the same schema).
 */
export const AcpSessionMeta = SpawnInput.pick({
  provider: true,
  model: true,
  permissionMode: true,
  account: true,
})
  .extend({
    host: HostName.optional().describe(
      "Run the session on this host of config.toml (its own umbel acp, over ssh): its id is HOST:NAME",
    ),
  })
  .partial()
  .strict()
  .describe("A session's own choices, in session/new's _meta.umbel; the face's flags fill the rest");
export type AcpSessionMeta = z.infer<typeof AcpSessionMeta>;

/**
 * `umbel acp`'s flags: spawn's (every session's worker starts with them; a session's `_meta.umbel`
 * may choose its own provider, model, permission mode and account), less what a session decides
 * (its name, its cwd, what it resumes), plus each prompt's limits.
 */
export const AcpFlags = SpawnInput.omit({
  name: true,
  cwd: true,
  resumeSession: true,
  continueSession: true,
  worktree: true,
  base: true,
})
  .extend({
    ...GuardFields,
    maxTurns: z
      .number()
      .int()
      .positive()
      .optional()
      .describe("Stop each prompt's turn after this many model messages (stopReason max_turn_requests)"),
    timeout: Duration.optional().describe("How long one prompt's turn may take (default 30m)"),
    host: HostName.optional().describe(
      "Serve from this host of config.toml: its own umbel acp, over ssh, speaks to the client (cwd paths are the host's; --env takes names only, read there)",
    ),
  })
  .strict();
export type AcpFlags = z.infer<typeof AcpFlags>;

/**
 * A session/prompt's own `_meta.umbel`: this prompt's guardrails and turn limit, over the face's
 * flags (the same fields, by the same schemas).
 */
export const AcpPromptMeta = AcpFlags.pick({
  jsonSchema: true,
  accept: true,
  maxAttempts: true,
  acceptTimeout: true,
  maxTurns: true,
  timeout: true,
})
  .partial()
  .strict()
  .describe("A prompt's own guardrails and limits, in session/prompt's _meta.umbel");
export type AcpPromptMeta = z.infer<typeof AcpPromptMeta>;

/** The permission modes a session can switch to: those the provider's launch takes. */
export function sessionModes(
  current: PermissionMode | undefined,
  accepts: (mode: PermissionMode) => boolean,
): SessionModeState {
  const availableModes = PermissionMode.options
    .filter((mode) => mode === "default" || accepts(mode))
    .map((id) => ({ id, name: MODE_NAMES[id], description: MODE_WORDS[id] }));
  return { currentModeId: current ?? "default", availableModes };
}

const MODE_NAMES: Readonly<Record<PermissionMode, string>> = {
  default: "Default",
  manual: "Ask every time",
  auto: "Auto",
  acceptEdits: "Accept edits",
  plan: "Plan",
  bypassPermissions: "Bypass permissions",
  dontAsk: "Don't ask",
};

const MODE_WORDS: Readonly<Record<PermissionMode, string>> = {
  default: "The CLI's own default, as in its TUI",
  manual: "Ask before every tool call that needs a permission",
  auto: "A classifier approves tool calls (claude)",
  acceptEdits: "Edits run without asking; commands ask",
  plan: "Plan only: no edits, no commands",
  bypassPermissions: "Never ask (use only in a sandbox)",
  dontAsk: "Never ask: what would need a person is refused",
};

export type AgentFacts = {
  readonly version: string;
  /** The provider reads image files (its prompts take images as attachments). */
  readonly images: boolean;
  readonly mcp: { readonly http: boolean; readonly sse: boolean };
};

/** initialize's answer: the protocol version umbel speaks and what really works. */
export function initializeResult(protocolVersion: number, facts: AgentFacts): InitializeResponse {
  return {
    protocolVersion,
    agentCapabilities: {
      loadSession: true,
      sessionCapabilities: { list: {}, close: {}, resume: {} },
      promptCapabilities: { image: facts.images, audio: false, embeddedContext: true },
      mcpCapabilities: { http: facts.mcp.http, sse: facts.mcp.sse },
    },
    agentInfo: { name: "umbel", title: "umbel", version: facts.version },
    authMethods: [],
  };
}
