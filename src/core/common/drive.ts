/**
 * The one loop every rule engine of umbel runs under (wait, readiness): the machine is pure (a state
 * and a step from what was seen to the next state and command); the driver asks it what to do, does
 * it with the caller's `perform` (the only side effects), and feeds back what that brought, until
 * the command is an end. The machine's rules and the I/O never mix, and every machine ends the same way.
 */
export type Machine<S, O, C, E extends C, R> = {
  /** The machine's first state. */
  readonly state: S;
  /** What is seen before any command (a tick). */
  readonly first: O;
  readonly step: (state: S, seen: O) => { readonly state: S; readonly next: C };
  /** Whether a command ends the machine. */
  readonly isEnd: (command: C) => command is E;
  /** The result of an end, with the state it was reached in. */
  readonly end: (command: E, state: S) => R;
  /** Carries out a command that is not an end, and returns what it saw. */
  readonly perform: (command: Exclude<C, E>, state: S) => Promise<O>;
};

export async function drive<S, O, C, E extends C, R>(machine: Machine<S, O, C, E, R>): Promise<R> {
  let state = machine.state;
  let seen = machine.first;
  for (;;) {
    const step = machine.step(state, seen);
    state = step.state;
    const command = step.next;
    if (machine.isEnd(command)) return machine.end(command, state);
    seen = await machine.perform(command as Exclude<C, E>, state);
  }
}
