import { z } from "zod";

/**
 * The process a worker belongs to: an anonymous `umbel -p`'s worker (made or claimed from the warm
 * pool) is its -p's alone. Once that process is gone nobody will use or remove the worker: its
 * wrapper (hooks/launch.sh) ends its session, `ls` shows it orphaned, `prune` removes it.
 */
export const Owner = z.object({
  pid: z.number().int().describe("The owning process"),
  start: z.string().describe("When it started (a reused pid names another process)"),
});
export type Owner = z.infer<typeof Owner>;

/** `<session>/owner`, the line launch.sh's watch reads once a second: `<pid> <start>`. */
export const OWNER_FILE = "owner";

export function ownerLine(owner: Owner): string {
  return `${owner.pid} ${owner.start}\n`;
}
