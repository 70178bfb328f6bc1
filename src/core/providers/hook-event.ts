/**
 * One line of the worker's events log, as the hook script appended it. A leaf of the provider
 * contract (core/providers/types.ts re-exports it): the rule engines that read events (limits, the
 * policy, the turn) import it from here, so none of them sits in a type cycle with the contract.
 */
export type HookEvent = {
  /** 0-based line number in the events log: the race-free ordering of everything a worker reports. */
  readonly index: number;
  readonly name: string;
  readonly payload: Readonly<Record<string, unknown>>;
};
