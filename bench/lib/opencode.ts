import type { ProviderBench } from "./bench-types.ts";

/** The real opencode on the stub: `opencode run` against `umbel -p --provider opencode`. Not yet measured. */
export async function setUpOpencodeBench(): Promise<ProviderBench | null> {
  return null;
}
