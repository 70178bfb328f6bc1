import { stepBudget } from "./budget.ts";
import { stepEvidence, stepStall } from "./finish.ts";
import type { Step, WaitConfig, WaitObservation, WaitState } from "./types.ts";
import { initialWatch, stepWatch } from "./watch.ts";

/** The machine before its first observation; the driver starts it with a `tick`. */
export function startWait(config: WaitConfig): WaitState {
  return { phase: "watch", config, watch: initialWatch(config.startedAt) };
}

/** Pure and total: every state takes every observation (an unexpected one ends the phase it is in). */
export function stepWait(state: WaitState, observation: WaitObservation): Step {
  switch (state.phase) {
    case "watch":
      return stepWatch(state, observation);
    case "evidence":
      return stepEvidence(state, observation);
    case "stall":
      return stepStall(state, observation);
    case "budget":
      return stepBudget(state, observation);
  }
}
