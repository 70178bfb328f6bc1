import { describe, expect, test } from "bun:test";
import { RemoteError } from "../../../src/core/errors.ts";
import { Envelope, renderEnvelope } from "../../../src/core/hosts/command.ts";
import {
  readProgressLine,
  renderProgressLine,
  splitLines,
  throttleProgress,
  type WireProgress,
} from "../../../src/core/hosts/progress.ts";
import { isProgressRefused } from "../../../src/core/hosts/reply.ts";

/** A remote wait's progress on the wire (docs/hosts.md#progress): the envelope's ask, the lines, their pace. */

const busy = (elapsedMs: number): WireProgress => ({ elapsedMs, turn: "running" });

describe("the envelope's progress", () => {
  test("asked for only when wanted; the envelope takes it", () => {
    const plain = JSON.parse(renderEnvelope({ name: "w" })) as Record<string, unknown>;
    expect(plain).toEqual({ protocol: 1, input: { name: "w" }, held: true });
    const asked = JSON.parse(renderEnvelope({ name: "w" }, { progress: true })) as Record<string, unknown>;
    expect(asked).toEqual({ protocol: 1, input: { name: "w" }, held: true, progress: true });
    expect(Envelope.safeParse(asked).success).toBe(true);
  });

  test.each([
    ['box: --stdin-json: stdin is not an envelope: Unrecognized key: "progress"', "usage", true],
    ["box: --stdin-json: stdin is not an envelope: protocol: Required", "usage", false],
    ['box: no worker "progress"', "not-found", false],
  ])("an older umbel's refusal %j (%s) → %s", (message, code, refused) => {
    expect(isProgressRefused(new RemoteError(message, { code, exitCode: 2 }))).toBe(refused);
  });
});

describe("progress lines", () => {
  test.each([
    [renderProgressLine(busy(1200)).trimEnd(), busy(1200)],
    [
      renderProgressLine({
        elapsedMs: 5,
        turn: "stop",
        attempt: 2,
        maxAttempts: 3,
        phase: "checking",
      }).trimEnd(),
      { elapsedMs: 5, turn: "stop", attempt: 2, maxAttempts: 3, phase: "checking" },
    ],
    [
      JSON.stringify({
        progress: {
          elapsedMs: 9,
          turn: "running",
          limited: { window: "five_hour", resetsAt: null, message: null },
        },
      }),
      { elapsedMs: 9, turn: "running", limited: { window: "five_hour", resetsAt: null, message: null } },
    ],
  ])("%s is an update", (line, progress) => {
    expect(readProgressLine(line)).toEqual(progress as WireProgress);
  });

  test.each([
    // The result and an error are never updates.
    JSON.stringify({ name: "w", reason: "stop", exitCode: 0, baseline: 2, elapsedMs: 40, evidence: {} }),
    JSON.stringify({ error: { code: "not-found", class: "X", message: "m", exitCode: 3, data: {} } }),
    JSON.stringify({ progress: { elapsedMs: 1, turn: "running" }, name: "w" }),
    JSON.stringify({ progress: { turn: "running" } }),
    '{"progress": ',
    "",
  ])("%j is not", (line) => {
    expect(readProgressLine(line)).toBeNull();
  });

  test("lines split as chunks come, wherever a chunk ends; the unended last one at the end", () => {
    const seen: string[] = [];
    const lines = splitLines((line) => seen.push(line));
    for (const chunk of [
      '{"progress":{"elapsed',
      'Ms":1,"turn":"running"}}\n{"pro',
      "gress",
      '":2}\n\n{"name"',
    ])
      lines.push(chunk);
    expect(seen).toEqual(['{"progress":{"elapsedMs":1,"turn":"running"}}', '{"progress":2}', ""]);
    lines.end();
    expect(seen.at(-1)).toBe('{"name"');
    lines.end();
    expect(seen).toHaveLength(4);
  });

  test("throttled: a change of state at once, the same state once a second", () => {
    const sent: WireProgress[] = [];
    const send = throttleProgress((p) => sent.push(p), 1000);
    for (const ms of [0, 200, 900, 1000, 1500, 2100]) send(busy(ms));
    send({ elapsedMs: 2200, turn: "stop", phase: "checking", attempt: 1, maxAttempts: 2 });
    send({ elapsedMs: 2300, turn: "stop", phase: "feedback", attempt: 1, maxAttempts: 2 });
    expect(sent.map((p) => [p.elapsedMs, p.turn, p.phase])).toEqual([
      [0, "running", undefined],
      [1000, "running", undefined],
      [2100, "running", undefined],
      [2200, "stop", "checking"],
      [2300, "stop", "feedback"],
    ]);
  });
});
