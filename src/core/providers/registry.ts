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
