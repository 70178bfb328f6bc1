import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { loadVerb } from "../../../src/faces/cli/verb-module.ts";
import { VERBS } from "../../../src/faces/verbs/table.ts";

setDefaultTimeout(20_000);

describe("the CLI's verb, loaded alone (faces/cli/verb-module.ts)", () => {
  test("is the table's own verb, for every verb of the table", async () => {
    for (const verb of VERBS) expect(await loadVerb(verb.name)).toBe(verb);
  });

  test("a name that is no verb loads nothing", async () => {
    expect(await loadVerb("completion")).toBeUndefined();
    expect(await loadVerb("bogus")).toBeUndefined();
  });
});
