import type { ProviderId } from "../schemas.ts";
import { claude } from "./claude.ts";
import { codex } from "./codex.ts";
import { gemini } from "./gemini.ts";
import type { Provider } from "./types.ts";

const PROVIDERS: Record<ProviderId, Provider> = { claude, codex, gemini };

export function getProvider(id: ProviderId): Provider {
  return PROVIDERS[id];
}
