/**
 * When an idle composer ends a turn its hooks say is still on: wait's rule (outcome.ts), status's and
 * the queue's. Apart from outcome.ts and its schemas, which `read` needs none of.
 */

/** The idle composer held this long with no end-of-turn hook, after the turn was drawn: it ended. */
const READY_WITHOUT_HOOK_MS = 2000;
/**
 * The same for a turn this wait never saw drawn (interrupted before the wait looked, or a TUI still
 * catching up with its hooks): a lagging TUI was seen idle-looking for 2.3 s at load ~13.
 */
const READY_UNDRAWN_MS = 10_000;

/**
 * Whether an idle composer held `readyForMs` ends a turn the hooks say is still on (an interrupt or
 * a prompt denied with keys fires no hook): wait's rule, and status's and the queue's (held since
 * the events log last grew).
 */
export function composerEndsTurn(drawn: boolean, readyForMs: number): boolean {
  return readyForMs >= (drawn ? READY_WITHOUT_HOOK_MS : READY_UNDRAWN_MS);
}
