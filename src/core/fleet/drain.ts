/**
 * `umbel __drain NAME`: a worker's end-of-turn hook sending its next queued prompt (never typed). Its
 * own file: faces/route.ts reads it at every start, before any schema is loaded.
 */
export const DRAIN_HOOK_COMMAND = "__drain";
