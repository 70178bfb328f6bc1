import type { Deps } from "../../core/ports.ts";

/** What a -p run reads and writes: the engine's ports and the process's own streams. */
export type PrintIo = {
  readonly deps: Deps;
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  readonly readStdin: () => Promise<string>;
  readonly stdinIsTty: boolean;
  /** stdin as a stream, for `-p --stdin-json` (faces/print/host.ts): its envelope, then its end. */
  readonly stdinStream?: () => ReadableStream<Uint8Array>;
};
