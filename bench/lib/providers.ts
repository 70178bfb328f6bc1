import type { ProviderBench } from "./bench-types.ts";
import { setUpClaudeBench } from "./claude.ts";
import { setUpCodexBench } from "./codex.ts";
import { setUpGeminiBench } from "./gemini.ts";
import { setUpOpencodeBench } from "./opencode.ts";

export type { ProviderBench } from "./bench-types.ts";

/** The provider's bench (one file each in bench/lib/), or null when its real CLI is not installed (npm run setup:real). */
export function setUpProvider(id: ProviderBench["id"]): Promise<ProviderBench | null> {
  if (id === "claude") return setUpClaudeBench();
  if (id === "codex") return setUpCodexBench();
  if (id === "gemini") return setUpGeminiBench();
  return setUpOpencodeBench();
}
