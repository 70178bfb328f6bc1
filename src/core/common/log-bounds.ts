/**
 * Every log and output umbel keeps is bounded, and says what it cut (issue 22: an accept check's
 * log grew to 4.1 GB in 5 s; a notify command printing 30 MB a turn grew notify.log by as much).
 * The sh scripts carry their own copies of the numbers (hooks/hook.sh, hooks/launch.sh:
 * `test/unit/common/log-bounds.test.ts` checks they agree); docs/architecture.md lists every bound.
 */

/** An accept check's log keeps its first and its last this many bytes (a test's summary is at its end). */
export const CHECK_LOG_KEEP_BYTES = 512 * 1024;

/** One run of a --notify command (or a queue drain, or a policy call's stderr) appends at most this. */
export const HOOK_RUN_LOG_BYTES = 64 * 1024;

/**
 * notify.log, drain.log, policy.log and pool-refill.log: once one has grown past this it is moved to
 * `<log>.1` (replacing the older one) before the next append, so each holds about twice this at most.
 */
export const ROTATE_LOG_BYTES = 1024 * 1024;

/** A workflow output (a `file:` output's head, an answer) is kept and passed on up to this many bytes. */
export const OUTPUT_INLINE_BYTES = 256 * 1024;
