import type { FailoverResult } from "../accounts/failover.ts";
import { beginEvidence } from "./finish.ts";
import type { OutcomeEvidence } from "./outcome.ts";
import type { TurnState } from "./turn.ts";
import type { LimitMemory, Step, WaitState, Watch } from "./types.ts";

/**
 * `--on-limit failover` in the wait machine: a turn a usage limit stopped is handed to the driver
 * (`failover`: pick another account of the provider, carry the session, relaunch, continue the
 * turn), which answers with what it did. Moved: the continued turn is followed from its own baseline,
 * and every outcome after it lists the moves (`evidence.failover`). Not placed (no account with
 * headroom) or failed: `limited` stands, with the earliest reset across the accounts or why.
 * The accounts left so far go with each command, so a wait leaves each account at most once.
 */

type Watching = Extract<WaitState, { phase: "watch" }>;
type Limited = Extract<TurnState, { status: "failure" }> & {
  limit: NonNullable<Extract<TurnState, { status: "failure" }>["limit"]>;
};

/** The limited turn is handed to the driver (or ends: dead, past the deadline). */
export function failOver(s: Watching, now: number, turn: Limited): Step {
  const { config, watch } = s;
  if (watch.exit || watch.pane.dead || watch.pane.gone || config.killed)
    return beginEvidence(s, now, { reason: "dead", evidence: { exit: watch.exit, ...moved(watch.limited) } });
  if (now >= config.deadline)
    return beginEvidence(s, now, {
      reason: "timeout",
      evidence: {
        timeoutMs: config.deadline - config.startedAt,
        limit: turn.limit,
        detail: "the usage limit came at the deadline: no time left to fail over",
        ...moved(watch.limited),
      },
    });
  const left = watch.limited.moves.map((m) => m.from);
  return {
    state: { ...s, watch: { ...watch, limited: { ...watch.limited, last: turn.limit } } },
    next: { kind: "failover", limit: turn.limit, left, until: config.deadline },
  };
}

/** The driver's answer: follow the continued turn, or end limited saying why. */
export function afterFailover(s: Watching, now: number, result: FailoverResult, fresh: Watch): Step {
  const memory = s.watch.limited;
  if (result.status === "moved") {
    const limited: LimitMemory = { ...fresh.limited, moves: [...memory.moves, result.move] };
    return {
      state: {
        phase: "watch",
        config: { ...s.config, baseline: result.baseline, killed: false },
        watch: { ...fresh, limited },
      },
      next: { kind: "read" },
    };
  }
  const half = result.status === "failed" ? result.move : undefined;
  const memo: LimitMemory = half ? { ...memory, moves: [...memory.moves, half] } : memory;
  const turn = s.watch.turn;
  const base: OutcomeEvidence =
    turn.status === "failure" ? { promptId: turn.promptId, error: turn.error, message: turn.message } : {};
  const limit = memory.last ?? (turn.status === "failure" ? turn.limit : undefined);
  const evidence: OutcomeEvidence = {
    ...base,
    ...(limit ? { limit } : {}),
    ...(result.status === "not-placed"
      ? { earliestReset: result.earliestReset, detail: `failover: ${result.reason}` }
      : { detail: `failover failed: ${result.error}` }),
    ...moved(memo),
  };
  return beginEvidence({ ...s, watch: { ...s.watch, limited: memo } }, now, { reason: "limited", evidence });
}

/** `failover: [...]` once the worker moved during this wait (absent otherwise). */
export function moved(memory: LimitMemory): Pick<OutcomeEvidence, "failover"> {
  return memory.moves.length > 0 ? { failover: [...memory.moves] } : {};
}
