import type { ProviderId } from "../schemas.ts";
import type { Provider } from "./types.ts";

/**
 * One provider, its module loaded on first use: the registry (registry.ts) imports all four, ~270 KB
 * of source and 50 modules that a short verb (ls, status) loaded at every start, ~4 ms of CPU, for
 * the one or two CLIs its workers run. The same objects as the registry's.
 */
const LOADERS: Record<ProviderId, () => Promise<Provider>> = {
  claude: async () => (await import("./claude/provider.ts")).claude,
  codex: async () => (await import("./codex/provider.ts")).codex,
  gemini: async () => (await import("./gemini/provider.ts")).gemini,
  opencode: async () => (await import("./opencode/provider.ts")).opencode,
};

const loaded = new Map<ProviderId, Provider>();

/**
 * The provider, loaded once: after that, a value at once (not a promise), so a loop that loads a
 * worker at every poll gives the event loop no turn it did not give before.
 */
export function loadProvider(id: ProviderId): Provider | Promise<Provider> {
  const provider = loaded.get(id);
  if (provider) return provider;
  return LOADERS[id]().then((first) => {
    loaded.set(id, first);
    return first;
  });
}
