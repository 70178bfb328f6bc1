import { MinHeap, type WorkMeter } from "./min-heap.ts";

/**
 * Planning is pure: which step waits for which, in what order each worker takes its steps, and the
 * waves a reader sees. A worker runs one step at a time, in dependency then file order, so each
 * step also waits for the previous step on its worker; that edge follows the global order and can
 * never close a cycle.
 *
 * Every function here is O((steps + needs) · log steps) and counts its work in a WorkMeter, so a
 * unit test can show the growth without timing (test/unit/workflow/plan-work.test.ts): the first
 * version searched the whole file per step and took 10 s for 8,000 steps.
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

export type { WorkMeter };

export function planWorkflow(steps: readonly PlanStep[], work: WorkMeter = { count: 0 }): Plan {
  const order = topologicalOrder(steps, work);
  const byId = new Map(steps.map((s) => [s.id, s]));
  const workers: Record<string, string[]> = {};
  const waitsFor: Record<string, string[]> = {};
  const waiting = new Map<string, Set<string>>();
  for (const id of order) {
    const step = byId.get(id);
    if (!step) continue;
    workers[step.run] ??= [];
    const queue = workers[step.run] ?? [];
    const previous = queue.at(-1);
    const needs = [...new Set(step.needs ?? [])];
    work.count += needs.length + 1;
    // The previous step on the worker, unless a need is it or waits for it itself. One hop keeps
    // this linear; when a longer path already waits for it, the extra edge changes no schedule.
    const implied =
      previous === undefined || needs.some((n) => n === previous || waiting.get(n)?.has(previous));
    waitsFor[id] = implied ? needs : [...needs, previous];
    waiting.set(id, new Set(waitsFor[id]));
    queue.push(id);
  }
  const level = new Map<string, number>();
  const waves: string[][] = [];
  for (const id of order) {
    let n = 0;
    for (const d of waitsFor[id] ?? []) {
      work.count++;
      n = Math.max(n, (level.get(d) ?? -1) + 1);
    }
    level.set(id, n);
    waves[n] ??= [];
    waves[n]?.push(id);
  }
  return { order, waves, workers, waitsFor };
}

/**
 * Kahn's algorithm, taking the earliest step in the file among those whose needs are placed (a
 * heap of file positions). Needs that name no step are ignored; steps on a cycle are left out
 * (validation names the cycle before anything plans).
 */
export function topologicalOrder(steps: readonly PlanStep[], work: WorkMeter = { count: 0 }): string[] {
  const index = new Map<string, number>();
  steps.forEach((s, i) => {
    if (!index.has(s.id)) index.set(s.id, i);
  });
  const blocking = steps.map(() => 0);
  const unblocks: number[][] = steps.map(() => []);
  steps.forEach((s, i) => {
    for (const need of new Set(s.needs ?? [])) {
      const j = index.get(need);
      work.count++;
      if (j === undefined) continue;
      blocking[i] = (blocking[i] ?? 0) + 1;
      unblocks[j]?.push(i);
    }
  });
  const ready = new MinHeap(work);
  blocking.forEach((n, i) => {
    if (n === 0) ready.push(i);
  });
  const order: string[] = [];
  for (let i = ready.pop(); i !== undefined; i = ready.pop()) {
    order.push(steps[i]?.id ?? "");
    for (const k of unblocks[i] ?? []) {
      work.count++;
      blocking[k] = (blocking[k] ?? 0) - 1;
      if (blocking[k] === 0) ready.push(k);
    }
  }
  return order;
}

/**
 * The first cycle through `needs` as a path that ends where it starts, each step needing the next.
 * A depth-first search with its own stack: a 50,000-step cycle overflowed the recursive one.
 */
export function findCycle(steps: readonly PlanStep[], work: WorkMeter = { count: 0 }): string[] | null {
  const needs = new Map(steps.map((s) => [s.id, s.needs ?? []]));
  const state = new Map<string, "open" | "done">();
  for (const step of steps) {
    if (state.has(step.id)) continue;
    const path = [step.id];
    const next = [0];
    state.set(step.id, "open");
    while (path.length > 0) {
      const id = path.at(-1) ?? "";
      const deps = needs.get(id) ?? [];
      const k = next[next.length - 1] ?? 0;
      work.count++;
      if (k >= deps.length) {
        state.set(id, "done");
        path.pop();
        next.pop();
        continue;
      }
      next[next.length - 1] = k + 1;
      const dep = deps[k] ?? "";
      if (!needs.has(dep) || state.get(dep) === "done") continue;
      if (state.get(dep) === "open") return [...path.slice(path.indexOf(dep)), dep];
      state.set(dep, "open");
      path.push(dep);
      next.push(0);
    }
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
