import { EXIT, UmbelError } from "../errors.ts";

/**
 * The workflow face's own failures. They live beside the workflow code rather than in core/errors.ts
 * only to keep this face self-contained; they map onto the shared exit-code table.
 */

/** `--resume` named a run this state root does not hold. */
export class RunNotFoundError extends UmbelError {
  override readonly code = "not-found";
  override readonly exitCode = EXIT.notFound;
}

/** Another umbel process is running (or resuming) this run right now. */
export class RunBusyError extends UmbelError {
  override readonly code = "run-busy";
  override readonly exitCode = EXIT.conflict;
}
