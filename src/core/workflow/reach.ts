import { type PlanStep, topologicalOrder, type WorkMeter } from "./plan.ts";

/**
 * Whether step `id` needs `target`, directly or transitively: the rule for
 * `{{ steps.TARGET.outputs.K }}`. A direct need answers at once; otherwise a depth-first search
 * over needs that remembers, per target, every step it has settled, and never enters a step placed
 * before the target (it cannot lead there). Every step of a 10,000-step chain using the first
 * step's output costs one walk down the chain, not one per step.
 */
export function createNeedsReach(
  steps: readonly PlanStep[],
  work: WorkMeter = { count: 0 },
): (id: string, target: string) => boolean {
  const needs = new Map(steps.map((s) => [s.id, s.needs ?? []]));
  const ids = new Set(steps.map((s) => s.id));
  // With duplicate ids the order means nothing (validation reports them); search without pruning.
  const position =
    ids.size === steps.length ? new Map(topologicalOrder(steps, work).map((id, i) => [id, i])) : null;
  const settled = new Map<string, Map<string, boolean>>();
  return (id, target) => {
    const direct = needs.get(id) ?? [];
    work.count += direct.length;
    if (direct.includes(target)) return true;
    const known = settled.get(target) ?? new Map<string, boolean>();
    settled.set(target, known);
    const floor = position?.get(target) ?? -1;
    const path = [id];
    const next = [0];
    const seen = new Set([id]);
    while (path.length > 0) {
      const at = path.at(-1) ?? "";
      const deps = needs.get(at) ?? [];
      const k = next[next.length - 1] ?? 0;
      work.count++;
      if (k >= deps.length) {
        known.set(at, false);
        path.pop();
        next.pop();
        continue;
      }
      next[next.length - 1] = k + 1;
      const dep = deps[k] ?? "";
      const answer = dep === target ? true : known.get(dep);
      if (answer === true) {
        for (const step of path) known.set(step, true);
        return true;
      }
      if (answer === false || seen.has(dep) || (position?.get(dep) ?? Number.POSITIVE_INFINITY) < floor)
        continue;
      seen.add(dep);
      path.push(dep);
      next.push(0);
    }
    return false;
  };
}
