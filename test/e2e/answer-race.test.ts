import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { type CliJson, sendAndWait, spawnOk } from "../helpers/cli.ts";
import { createSandbox, type Sandbox } from "../helpers/sandbox.ts";

// Workers on real tmux take seconds a round; bun's default is 5 s.
setDefaultTimeout(90_000);

/**
 * Issue 22 item 4, kept as a probe: callers answering one input id at once. One answer wins (exit
 * 0, its key pressed); every other exits 4 with nothing pressed, so nothing is left typed in the
 * composer and the deny caller is never told it succeeded while the command ran.
 */

let sb: Sandbox;
const name = "race";
beforeAll(async () => {
  sb = await createSandbox();
  await spawnOk(sb, name, ["--permission-mode", "manual"]);
});
afterAll(async () => {
  await sb.dispose();
});

const json = (text: string) => JSON.parse(text) as CliJson;
const made = () => join(sb.work, "x.txt");

/** Asks the fake's permission prompt; returns its baseline and input id. */
async function ask(): Promise<{ baseline: number; inputId: string }> {
  rmSync(made(), { force: true });
  const asked = await sendAndWait(sb, name, "fake:permission", ["--timeout", "20s"]);
  expect(asked.outcome.reason).toBe("input");
  return { baseline: asked.baseline, inputId: String(asked.outcome.evidence.inputId) };
}

/** Every caller at once (each its own umbel process), with the same input id. */
async function race(choices: readonly string[], inputId: string) {
  const runs = await Promise.all(
    choices.map((choice) => sb.umbel(["answer", name, choice, "--input-id", inputId, "--json"])),
  );
  return runs.map((run, i) => ({ ...run, choice: choices[i] ?? "" }));
}

/** The composer's line once the turn is over: nothing typed in it. */
async function composer(): Promise<string> {
  const screen = (await sb.umbel(["capture", name])).stdout;
  return (
    screen
      .split("\n")
      .filter((line) => line.startsWith("❯"))
      .at(-1) ?? ""
  );
}

describe("concurrent answers on one input id", () => {
  // allow against deny, each order of start; the seed-free form of the probe (10 of 10 both won).
  test.each([["allow deny"], ["deny allow"], ["allow deny allow deny"]])(
    "%s: one wins, the others exit 4 with nothing pressed",
    async (list) => {
      const choices = list.split(" ");
      const { baseline, inputId } = await ask();
      const runs = await race(choices, inputId);
      const won = runs.filter((r) => r.code === 0);
      expect(won.length).toBe(1);
      const [winner] = won;
      if (!winner) throw new Error("no winner");
      expect(json(winner.stdout)).toMatchObject({ name, inputId, choice: winner.choice });
      for (const lost of runs.filter((r) => r !== winner)) {
        expect(lost.stderr).toContain(`prompt ${inputId}`);
        expect(lost.stderr).toContain("nothing was pressed");
        expect(lost.code).toBe(4);
      }
      const done = await sb.umbel(["wait", name, "--after", String(baseline), "--json", "--timeout", "20s"]);
      expect(json(done.stdout).reason).toBe("stop");
      // The command ran exactly when the winner allowed it.
      expect(existsSync(made())).toBe(winner.choice === "allow");
      expect((await composer()).replace(/^❯\s*/, "").trim()).toBe("");
    },
  );

  test("five allows: one presses its key, none is left typed in the composer", async () => {
    const { baseline, inputId } = await ask();
    const runs = await race(["allow", "allow", "allow", "allow", "allow"], inputId);
    expect(runs.filter((r) => r.code === 0).length).toBe(1);
    expect(runs.filter((r) => r.code === 4).length).toBe(4);
    const done = await sb.umbel(["wait", name, "--after", String(baseline), "--json", "--timeout", "20s"]);
    expect(json(done.stdout).reason).toBe("stop");
    expect(existsSync(made())).toBe(true);
    expect((await composer()).replace(/^❯\s*/, "").trim()).toBe("");
  });

  test("three allows without an id: one answers what the screen shows, the others find no prompt (4)", async () => {
    const { baseline } = await ask();
    const runs = await Promise.all([1, 2, 3].map(() => sb.umbel(["answer", name, "allow"])));
    expect(runs.filter((r) => r.code === 0).length).toBe(1);
    for (const lost of runs.filter((r) => r.code !== 0)) {
      expect(lost.stderr).toContain("nothing was pressed");
      expect(lost.code).toBe(4);
    }
    const done = await sb.umbel(["wait", name, "--after", String(baseline), "--json", "--timeout", "20s"]);
    expect(json(done.stdout).reason).toBe("stop");
    expect((await composer()).replace(/^❯\s*/, "").trim()).toBe("");
  });
});
