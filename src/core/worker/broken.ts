import { z } from "zod";

/** What is wrong with a worker umbel cannot read (its own state), and how to put it right. */
export const BrokenWorker = z
  .object({
    file: z.string().describe("The file (or folder) that is wrong"),
    reason: z.string().describe("What is wrong with it"),
    fix: z.string().describe("How to fix it, or remove the worker"),
  })
  .describe("state broken: the worker's own state cannot be read; the rest of the fleet is listed as usual");
export type BrokenWorker = z.infer<typeof BrokenWorker>;
