import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { loadProvider } from "../../../src/core/providers/load.ts";
import { getProvider, listProviders } from "../../../src/core/providers/registry.ts";

setDefaultTimeout(20_000);

describe("loadProvider (one provider's module, on first use)", () => {
  test("is the registry's provider, the same object, for every registered CLI", async () => {
    for (const provider of listProviders())
      expect(await loadProvider(provider.id)).toBe(getProvider(provider.id));
  });
});
