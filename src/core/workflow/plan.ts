/**
 * Planning is pure: which step waits for which, in what order each worker takes its steps, and the
 * waves a reader sees. A worker runs one step at a time, in dependency then file order, so each
 * step also waits for the previous step on its worker; that edge follows the global order and can
 * never close a cycle.
 */

export type PlanStep = {
  readonly id: string;
  readonly run: string;
  readonly needs?: readonly string[] | undefined;
};

export type Plan = {
  /** Every step, dependencies first, file order among the ready ones. */
  order: string[];
  /** Steps that can run together once the waves before them are done. */
  waves: string[][];
  /** Each worker's steps, in the order it runs them. */
  workers: Record<string, string[]>;
  /** What a step waits for: its needs plus the previous step on its worker. */
  waitsFor: Record<string, string[]>;
};

export function planWorkflow(steps: readonly PlanStep[]): Plan {
  const order = topologicalOrder(steps);
  const byId = new Map(steps.map((s) => [s.id, s]));
  const workers: Record<string, string[]> = {};
  const waitsFor: Record<string, string[]> = {};
  for (const id of order) {
    const step = byId.get(id);
    if (!step) continue;
    workers[step.run] ??= [];
    const queue = workers[step.run] ?? [];
    const previous = queue.at(-1);
    const needs = [...new Set(step.needs ?? [])];
    // The previous step on the worker, unless a need already waits for it.
    const implied =
      previous === undefined || needs.includes(previous) || ancestorsOf(steps, id).has(previous);
    waitsFor[id] = implied ? needs : [...needs, previous];
    queue.push(id);
  }
  const level = new Map<string, number>();
  const waves: string[][] = [];
  for (const id of order) {
    const n = Math.max(-1, ...(waitsFor[id] ?? []).map((d) => level.get(d) ?? -1)) + 1;
    level.set(id, n);
    waves[n] = [...(waves[n] ?? []), id];
  }
  return { order, waves, workers, waitsFor };
}

/** Kahn's algorithm, taking the earliest step in the file among those whose needs are placed. */
function topologicalOrder(steps: readonly PlanStep[]): string[] {
  const placed = new Set<string>();
  const order: string[] = [];
  const known = new Set(steps.map((s) => s.id));
  while (order.length < steps.length) {
    const next = steps.find(
      (s) => !placed.has(s.id) && (s.needs ?? []).every((n) => placed.has(n) || !known.has(n)),
    );
    if (!next) throw new Error(`cycle among ${steps.filter((s) => !placed.has(s.id)).map((s) => s.id)}`);
    placed.add(next.id);
    order.push(next.id);
  }
  return order;
}

/** The first cycle through `needs` as a path that ends where it starts, each step needing the next. */
export function findCycle(steps: readonly PlanStep[]): string[] | null {
  const needs = new Map(steps.map((s) => [s.id, s.needs ?? []]));
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (id: string): string[] | null => {
    if (state.get(id) === "done" || !needs.has(id)) return null;
    if (state.get(id) === "open") return [...stack.slice(stack.indexOf(id)), id];
    state.set(id, "open");
    stack.push(id);
    for (const dep of needs.get(id) ?? []) {
      const cycle = visit(dep);
      if (cycle) return cycle;
    }
    stack.pop();
    state.set(id, "done");
    return null;
  };
  for (const step of steps) {
    const cycle = visit(step.id);
    if (cycle) return cycle;
  }
  return null;
}

/** Every step `id` needs, directly or transitively (cycles are tolerated: each step is seen once). */
export function ancestorsOf(steps: readonly PlanStep[], id: string): Set<string> {
  const needs = new Map(steps.map((s) => [s.id, s.needs ?? []]));
  const seen = new Set<string>();
  const todo = [...(needs.get(id) ?? [])];
  for (let dep = todo.pop(); dep !== undefined; dep = todo.pop()) {
    if (seen.has(dep)) continue;
    seen.add(dep);
    todo.push(...(needs.get(dep) ?? []));
  }
  return seen;
}
