/** Steps, edges and heap moves touched: what the tests count. */
export type WorkMeter = { count: number };

/** A binary min-heap of numbers (file positions of ready steps); each sift step counts as work. */
export class MinHeap {
  private readonly items: number[] = [];

  constructor(private readonly work: WorkMeter) {}

  push(value: number): void {
    const items = this.items;
    items.push(value);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      this.work.count++;
      if ((items[parent] ?? 0) <= value) break;
      items[i] = items[parent] ?? 0;
      i = parent;
    }
    items[i] = value;
  }

  pop(): number | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length === 0 || last === undefined) return top;
    let i = 0;
    for (;;) {
      this.work.count++;
      const left = 2 * i + 1;
      if (left >= items.length) break;
      const right = left + 1;
      const child = right < items.length && (items[right] ?? 0) < (items[left] ?? 0) ? right : left;
      if ((items[child] ?? 0) >= last) break;
      items[i] = items[child] ?? 0;
      i = child;
    }
    items[i] = last;
    return top;
  }
}
