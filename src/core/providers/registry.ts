import type { ProviderId } from "../schemas.ts";
import { claude } from "./claude/provider.ts";
import { codex } from "./codex/provider.ts";
import { gemini } from "./gemini/provider.ts";
import { opencode } from "./opencode/provider.ts";
import type { Provider } from "./types.ts";

const PROVIDERS: Record<ProviderId, Provider> = { claude, codex, gemini, opencode };

export function getProvider(id: ProviderId): Provider {
  return PROVIDERS[id];
}

export function listProviders(): Provider[] {
  return Object.values(PROVIDERS);
}

/**
 * A provider session id, of any registered CLI, as opposed to a umbel worker name (which never holds
 * `_` and is never a UUID's shape).
 */
export function isSessionId(value: string): boolean {
  return listProviders().some((p) => p.sessionIdPattern.test(value));
}

/**
 * Every registered CLI as prose says it: "Claude Code (claude), Codex (codex), Gemini CLI (gemini)
 * and opencode (opencode)", for the help texts and the MCP server's instructions.
 */
export function describeProviders(): string {
  return joinWords(listProviders().map((p) => `${p.displayName} (${p.id})`));
}

/** "Claude Code, Codex, Gemini CLI, opencode": the registered CLIs' names. */
export function providerNames(): string {
  return listProviders()
    .map((p) => p.displayName)
    .join(", ");
}

function joinWords(words: readonly string[]): string {
  return words.length <= 1 ? words.join("") : `${words.slice(0, -1).join(", ")} and ${words.at(-1)}`;
}
