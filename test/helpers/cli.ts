import { expect } from "bun:test";
import type { SpawnResult } from "../../src/core/worker/outputs.ts";
import { renderDialogNotes } from "../../src/faces/verbs/render-dialogs.ts";
import type { Sandbox } from "./sandbox.ts";

/** A JSON result printed by dist/umbel (wait outcomes carry `evidence`). */
export type CliJson = Record<string, unknown> & { evidence: Record<string, unknown> };
const parseJson = (text: string) => JSON.parse(text) as CliJson;

/**
 * `umbel spawn NAME --json …` that must succeed; returns its result. stderr holds exactly one line
 * per dialog the result says umbel answered (nothing else, and no dialog unsaid).
 */
export async function spawnOk(sb: Sandbox, name: string, flags: readonly string[] = []): Promise<CliJson> {
  const r = await sb.umbel(["spawn", name, "--json", ...flags]);
  expect(r.code).toBe(0);
  const result = parseJson(r.stdout) as CliJson & SpawnResult;
  expect(r.stderr).toBe(renderDialogNotes(result));
  return result;
}

/** One turn through the CLI: send (from stdin, must be taken) → wait --after its baseline. */
export async function sendAndWait(
  sb: Sandbox,
  name: string,
  prompt: string,
  waitFlags: readonly string[] = [],
) {
  const sent = await sb.umbel(["send", name, "--json"], { stdin: prompt });
  expect(sent.stderr).toBe("");
  expect(sent.code).toBe(0);
  const baseline = parseJson(sent.stdout).baseline as number;
  const waited = await sb.umbel(["wait", name, "--after", String(baseline), "--json", ...waitFlags]);
  return { baseline, outcome: parseJson(waited.stdout), code: waited.code, stderr: waited.stderr };
}
