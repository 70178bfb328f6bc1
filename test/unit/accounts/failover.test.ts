import { describe, expect, test } from "bun:test";
import {
  describeMove,
  earliestReset,
  type FailoverMove,
  failoverLogEntries,
  parseFailoverLog,
  refuseLiteralEnv,
} from "../../../src/core/accounts/failover.ts";
import {
  type AccountWindows,
  type PlacementCandidate,
  unseen,
} from "../../../src/core/accounts/placement.ts";
import { getProvider } from "../../../src/core/providers/registry.ts";

/** --on-limit failover's pure parts (docs/accounts.md, "Failover"). */
const NOW = Date.parse("2026-12-03T12:00:00Z");
const limit = (resetsAt: string | null) => ({ window: "five_hour", resetsAt, message: null });
const limited = (account: string | null, resetsAt: string | null): AccountWindows => ({
  ...unseen("claude", account),
  lastLimit: { at: "2026-12-03T11:00:00Z", worker: "w", limit: limit(resetsAt) },
});
const full = (account: string, resetsAt: string): AccountWindows => ({
  ...unseen("claude", account),
  windows: [{ name: "seven_day", usedPercent: 100, resetsAt, minutes: 10080 }],
});
const c = (
  account: string | null,
  known: AccountWindows | null,
  billing: PlacementCandidate["billing"] = "subscription",
): PlacementCandidate => ({ account, billing, live: 0, known });

describe("earliestReset: across the provider's accounts, the accounts left included", () => {
  const cases: [string, string | null, PlacementCandidate[], string | null][] = [
    ["the turn's own limit alone", "2026-12-03T13:00:00Z", [c("a", null)], "2026-12-03T13:00:00Z"],
    [
      "an account left earlier resets first",
      "2026-12-03T15:00:00Z",
      [c("a", limited("a", "2026-12-03T12:30:00Z")), c(null, limited(null, "2026-12-03T14:00:00Z"))],
      "2026-12-03T12:30:00Z",
    ],
    [
      "a used-up window counts",
      "2026-12-03T15:00:00Z",
      [c("b", full("b", "2026-12-03T12:10:00Z"))],
      "2026-12-03T12:10:00Z",
    ],
    ["a reset already passed does not", null, [c("a", limited("a", "2026-12-03T11:30:00Z"))], null],
    [
      "an API-key account does not (never placed)",
      "2026-12-03T15:00:00Z",
      [c("k", limited("k", "2026-12-03T12:05:00Z"), "api-key")],
      "2026-12-03T15:00:00Z",
    ],
    ["none says: null", null, [c("a", limited("a", null))], null],
  ];
  test.each(cases)("%s", (_name, own, candidates, expected) => {
    expect(earliestReset(limit(own), candidates, NOW)).toBe(expected);
  });
});

describe("refuseLiteralEnv: a relaunch can pass only what goes by name", () => {
  test.each([
    [undefined, null],
    [{ A: { fromEnv: "B" } }, null],
    [{ A: { fromEnv: "B" }, X: "1", Y: "2" }, "pass X, Y by name"],
  ] as const)("%j", (env, words) => {
    const refused = refuseLiteralEnv(env);
    if (words === null) expect(refused).toBeNull();
    else expect(refused).toContain(words);
  });
});

describe("the failover log (logs: umbel:failover)", () => {
  const move: FailoverMove = {
    from: "a",
    to: null,
    limit: limit("2026-12-03T13:00:00Z"),
    at: "2026-12-03T12:00:00Z",
    carried: "fresh",
  };
  test("records round-trip; anything else reads as none", () => {
    const text = JSON.stringify([{ ...move, index: 4 }, { nonsense: true }]);
    expect(parseFailoverLog(text)).toEqual([{ ...move, index: 4 }]);
    expect(parseFailoverLog("not json")).toEqual([]);
    expect(parseFailoverLog(null)).toEqual([]);
  });
  test("each move is an umbel:failover line at its index, with a summary naming both accounts", () => {
    expect(describeMove(move)).toBe("a → (default) (five_hour limit, fresh)");
    expect(failoverLogEntries([{ ...move, index: 4 }])).toEqual([
      {
        key: "failover.0",
        index: 4,
        name: "umbel:failover",
        payload: { ...move, summary: "failover: a → (default) (five_hour limit, fresh)" },
      },
    ]);
  });
});

describe("Provider.carrySession: where the session record goes under the new account's environment", () => {
  const cases: [string, string, Record<string, string>, string | null][] = [
    [
      "claude",
      "/h/a/projects/-work-x/S.jsonl",
      { CLAUDE_CONFIG_DIR: "/h/b", HOME: "/home/u" },
      "/h/b/projects/-work-x/S.jsonl",
    ],
    [
      "claude",
      "/h/a/projects/-work-x/S.jsonl",
      { HOME: "/home/u" },
      "/home/u/.claude/projects/-work-x/S.jsonl",
    ],
    ["claude", "/somewhere/S.jsonl", { CLAUDE_CONFIG_DIR: "/h/b" }, null],
    [
      "codex",
      "/s/codex-home-a/sessions/2026/12/03/rollout-t-ID.jsonl",
      { CODEX_HOME: "/s/codex-home-b" },
      "/s/codex-home-b/sessions/2026/12/03/rollout-t-ID.jsonl",
    ],
    ["codex", "/s/codex-home-a/sessions/2026/12/03/rollout-t-ID.jsonl", {}, null],
    [
      "gemini",
      "/s/sessions/w/gemini/.gemini/tmp/work/chats/session-x.jsonl",
      { GEMINI_CLI_HOME: "/s/sessions/w/gemini" },
      "/s/sessions/w/gemini/.gemini/tmp/work/chats/session-x.jsonl",
    ],
    ["claude", "/h/a/projects/../S.jsonl", { CLAUDE_CONFIG_DIR: "/h/b" }, null],
  ];
  test.each(cases)("%s %s", (id, transcript, env, expected) => {
    const provider = getProvider(id as "claude" | "codex" | "gemini");
    expect(provider.carrySession?.(transcript, env) ?? null).toBe(expected);
  });
  test("opencode's sessions are in the account's own database: none is carried", () => {
    expect(getProvider("opencode").carrySession).toBeUndefined();
  });
});
